"""PURE module: what the committed access-log samples share (see ``build_samples``).

The record type :class:`Rec` (one HTTP request as a server would log it), the
sample day, browser and bot user agents, the shop's site address, random
addresses, durations and UUIDs from a seeded :class:`random.Random`, and the
Common Log Format timestamp.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timezone

DAY = datetime(2026, 11, 28, tzinfo=UTC)
BROWSERS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/18.1 Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
    "Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
    "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.6778.81 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
)
BOTS = (
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
)
SITE = "https://shop.example.com"


@dataclass(frozen=True)
class Rec:
    """One HTTP request as a server would log it."""

    when: datetime
    ip: str
    method: str
    target: str
    status: int
    size: int
    referer: str = "-"
    agent: str = "-"
    seconds: float = 0.0
    proto: str = "HTTP/1.1"
    user: str = "-"


def public_ip(rng: random.Random) -> str:
    """A random public-looking IPv4 address."""
    first = rng.choice((24, 31, 37, 46, 67, 73, 82, 91, 98, 109, 151, 176, 185, 203))
    return f"{first}.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"


def ipv6(rng: random.Random) -> str:
    """A random global IPv6 address in compressed form."""
    groups = [f"{rng.randrange(1, 65536):x}" for _ in range(4)]
    return f"2a02:8109:{groups[0]}:{groups[1]}::{groups[2]}:{groups[3]}"


def ms(rng: random.Random, lo: float, hi: float) -> float:
    """A log-uniform duration in seconds between lo and hi."""
    return float(lo * (hi / lo) ** rng.random())


def uuid4(rng: random.Random) -> str:
    """A random version-4 UUID string."""
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[rng.randrange(4)]}{h[17:20]}-{h[20:]}"


def clf(t: datetime, tz: timezone = UTC) -> str:
    """Common Log Format timestamp, e.g. 28/Nov/2026:13:55:36 +0000."""
    return t.astimezone(tz).strftime("%d/%b/%Y:%H:%M:%S %z")
