"""EDGE module: builds the committed sample logs in ``sample_logs/``.

Run ``python -m logagent.samples.build_samples [OUT_DIR]`` to (re)write
``nginx_access.log``, ``apache_access.log`` and ``app_access.jsonl`` plus an
``X.expected.json`` for each.  The traffic is hand-shaped (browsing sessions
with their assets and XHR calls, crawlers, health probes, a vulnerability
scanner, an upstream incident) rather than the bulk generator's output.

The PURE part (record building, formatting, and the simple independent
parser that computes the expected answers by reading the written file back)
is deterministic; only :func:`main`/:func:`write_sample` touch the disk.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

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


# ---------------------------------------------------------------- nginx shop

ASSETS = {
    "/static/css/main.8f3c2a1b.css": 48213,
    "/static/js/app.4e1c9d7b.js": 231877,
    "/static/js/vendor.b71f02aa.js": 612004,
    "/static/img/logo.svg": 5120,
    "/static/fonts/Open%20Sans%20Regular.woff2": 63124,
    "/favicon.ico": 15086,
}
INCIDENT = (DAY.replace(hour=13, minute=48), DAY.replace(hour=14, minute=11))
TERMS = ("running shoes", "rain jacket", "gift card", "socks", "yoga mat", "headphones")


def in_incident(t: datetime) -> bool:
    """True during the payment upstream outage."""
    return INCIDENT[0] <= t < INCIDENT[1]


def shop_page(rng: random.Random) -> str:
    """A landing or browsing page of the shop."""
    pid = rng.choice((rng.randrange(1000, 1100), rng.randrange(1000, 99999)))
    pages = (
        "/",
        "/",
        "/products",
        f"/products/{pid}",
        f"/products/{pid}",
        "/cart",
        "/blog/black-friday-deals",
        "/account/orders",
        "/search?q=" + rng.choice(TERMS).replace(" ", "+"),
    )
    return rng.choice(pages)


def asset_recs(rng: random.Random, s: Session, page: str) -> list[Rec]:
    """Static assets loaded by a page view (304 when cached)."""
    out = []
    for path, size in ASSETS.items():
        if rng.random() < 0.5:
            cached = s.seen_assets and rng.random() < 0.8
            out.append(
                s.rec(
                    rng,
                    "GET",
                    path,
                    304 if cached else 200,
                    0 if cached else size,
                    SITE + page,
                    ms(rng, 0.0005, 0.004),
                )
            )
    s.seen_assets = True
    return out


@dataclass
class Session:
    """A visitor: address, browser and a running clock."""

    ip: str
    agent: str
    t: datetime
    proto: str
    seen_assets: bool = False

    def rec(
        self,
        rng: random.Random,
        method: str,
        target: str,
        status: int,
        size: int,
        referer: str,
        seconds: float,
    ) -> Rec:
        """Log one request and advance the clock a little."""
        self.t += timedelta(seconds=rng.uniform(0.01, 0.4))
        return Rec(
            self.t,
            self.ip,
            method,
            target,
            status,
            size,
            referer,
            self.agent,
            round(seconds, 3),
            self.proto,
        )

    def think(self, rng: random.Random) -> None:
        """Pause between page views."""
        self.t += timedelta(seconds=rng.expovariate(1 / 25))


def json_size(rng: random.Random, lo: int, hi: int) -> int:
    """Body size of a JSON API response."""
    return rng.randrange(lo, hi)


def home_api(rng: random.Random, s: Session, ref: str) -> list[Rec]:
    """Recommendations (rare 503 from an overloaded service) and the cart badge."""
    uid = rng.randrange(1, 480_000)
    status = 503 if rng.random() < 0.012 else 200
    size = 197 if status == 503 else json_size(rng, 2000, 9000)
    secs = 0.001 if status == 503 else ms(rng, 0.02, 0.3)
    return [
        s.rec(rng, "GET", f"/api/v1/recommendations/{uid}", status, size, ref, secs),
        s.rec(rng, "GET", "/api/v1/cart", 200, json_size(rng, 80, 900), ref, ms(rng, 0.005, 0.05)),
    ]


def product_api(rng: random.Random, s: Session, ref: str) -> list[Rec]:
    """Product detail and first page of reviews."""
    pid = ref.rsplit("/", 1)[1]
    status = 500 if rng.random() < 0.003 else 200
    return [
        s.rec(
            rng,
            "GET",
            f"/api/v1/products/{pid}",
            status,
            177 if status == 500 else json_size(rng, 1500, 6000),
            ref,
            ms(rng, 0.01, 0.12),
        ),
        s.rec(
            rng,
            "GET",
            f"/api/v1/products/{pid}/reviews?page=1&sort=recent",
            200,
            json_size(rng, 300, 12000),
            ref,
            ms(rng, 0.01, 0.2),
        ),
    ]


def listing_api(rng: random.Random, s: Session, ref: str) -> list[Rec]:
    """Category listing with paging."""
    cat = rng.choice(("shoes", "jackets", "accessories", "sale"))
    target = f"/api/v1/products?category={cat}&page={rng.randrange(1, 6)}&per_page=24"
    return [s.rec(rng, "GET", target, 200, json_size(rng, 8000, 30000), ref, ms(rng, 0.03, 0.4))]


def search_api(rng: random.Random, s: Session, ref: str) -> list[Rec]:
    """Search: slow, sometimes 500 (query timeout) or 499 (client gave up)."""
    q = ref.split("q=", 1)[1]
    roll = rng.random()
    status = 500 if roll < 0.045 else 499 if roll < 0.09 else 200
    size = {500: 177, 499: 0}.get(status, json_size(rng, 3000, 20000))
    secs = ms(rng, 2.0, 9.0) if status != 200 else ms(rng, 0.1, 1.5)
    return [s.rec(rng, "GET", f"/api/v1/search?q={q}&limit=24", status, size, ref, secs)]


def cart_api(rng: random.Random, s: Session, ref: str) -> list[Rec]:
    """Cart contents, then maybe the checkout flow."""
    cart = f"/api/v2/carts/{rng.getrandbits(128):032x}"
    cart = f"{cart[:22]}-{cart[22:26]}-4{cart[27:30]}-a{cart[31:34]}-{cart[34:46]}"
    status = 502 if in_incident(s.t) and rng.random() < 0.3 else 200
    out = [
        s.rec(
            rng,
            "GET",
            cart,
            status,
            157 if status == 502 else json_size(rng, 200, 4000),
            ref,
            ms(rng, 0.005, 0.08),
        )
    ]
    if rng.random() < 0.4:
        out += checkout(rng, s)
    return out


def checkout(rng: random.Random, s: Session) -> list[Rec]:
    """Checkout page, order creation and payment (retried while it fails)."""
    s.think(rng)
    ref = SITE + "/checkout"
    page = 502 if in_incident(s.t) and rng.random() < 0.08 else 200
    out = [
        s.rec(
            rng,
            "GET",
            "/checkout",
            page,
            157 if page == 502 else 31877,
            SITE + "/cart",
            ms(rng, 0.05, 0.3),
        )
    ]
    if page != 200:
        return out
    out += asset_recs(rng, s, "/checkout")
    oid = rng.randrange(4_100_000, 4_200_000)
    out.append(
        s.rec(rng, "POST", "/api/v1/orders", 201, json_size(rng, 400, 900), ref, ms(rng, 0.05, 0.2))
    )
    for _ in range(3):
        failing = in_incident(s.t) and rng.random() < 0.85
        status = rng.choice((502, 502, 504)) if failing else 200
        secs = 60.001 if status == 504 else ms(rng, 0.002, 0.03) if failing else ms(rng, 0.4, 1.6)
        size = {502: 157, 504: 167}.get(status, 612)
        out.append(s.rec(rng, "POST", f"/api/v1/orders/{oid}/payment", status, size, ref, secs))
        if not failing:
            break
        s.t += timedelta(seconds=rng.uniform(1, 6))
    return out


def orders_api(rng: random.Random, s: Session, ref: str) -> list[Rec]:
    """Order history of a logged-in user (401 when the session expired)."""
    uid = rng.randrange(1, 480_000)
    status = 401 if rng.random() < 0.1 else 200
    return [
        s.rec(
            rng,
            "GET",
            f"/api/v1/users/{uid}/orders?page=1",
            status,
            71 if status == 401 else json_size(rng, 500, 15000),
            ref,
            ms(rng, 0.01, 0.2),
        )
    ]


API_FOR_PAGE: dict[str, Callable[[random.Random, Session, str], list[Rec]]] = {
    "/": home_api,
    "/products/*": product_api,
    "/products": listing_api,
    "/search": search_api,
    "/cart": cart_api,
    "/account/orders": orders_api,
}


def page_api(rng: random.Random, s: Session, page: str) -> list[Rec]:
    """XHR calls the front end makes after loading ``page``."""
    path = page.split("?", 1)[0]
    key = "/products/*" if path.startswith("/products/") else path
    fn = API_FOR_PAGE.get(key)
    return fn(rng, s, SITE + page) if fn else []


def page_view(rng: random.Random, s: Session, page: str, referer: str) -> list[Rec]:
    """A page, its assets and its API calls."""
    missing = page.startswith("/products/") and rng.random() < 0.02
    status, size = (404, 3650) if missing else (200, rng.randrange(18000, 64000))
    out = [s.rec(rng, "GET", page, status, size, referer, ms(rng, 0.03, 0.35))]
    out += asset_recs(rng, s, page)
    return out if missing else out + page_api(rng, s, page)


def browse_session(rng: random.Random, start: datetime, ip: str) -> list[Rec]:
    """A shopper: landing page from a search engine or direct, then a few more."""
    proto = rng.choice(("HTTP/1.1", "HTTP/2.0", "HTTP/2.0"))
    s = Session(ip, rng.choice(BROWSERS), start, proto)
    referer = rng.choice(
        ("-", "-", "https://www.google.com/", "https://www.bing.com/", "https://l.facebook.com/")
    )
    out: list[Rec] = []
    for _ in range(rng.choice((1, 1, 2, 2, 3, 4))):
        page = shop_page(rng)
        out += page_view(rng, s, page, referer)
        referer = SITE + page
        s.think(rng)
    return out


def buyer_session(rng: random.Random, start: datetime, ip: str) -> list[Rec]:
    """A flash-sale buyer: product page, cart, then straight to checkout."""
    s = Session(ip, rng.choice(BROWSERS), start, "HTTP/2.0")
    page = f"/products/{rng.randrange(1000, 1010)}"
    out = page_view(rng, s, page, "https://l.facebook.com/")
    s.think(rng)
    out += page_view(rng, s, "/cart", SITE + page)
    return out + checkout(rng, s)


def probes(start: datetime, end: datetime, every: int, target: str, agent: str) -> list[Rec]:
    """Load balancer / kubernetes health checks at a fixed period."""
    out = []
    t, k = start, 0
    while t < end:
        out.append(Rec(t, f"10.0.1.{1 + k % 3}", "GET", target, 200, 2, "-", agent, 0.001))
        t += timedelta(seconds=every)
        k += 1
    return out


def crawler(rng: random.Random, start: datetime, end: datetime) -> list[Rec]:
    """Search engine bots fetching product pages, robots.txt and the sitemap."""
    out = []
    t = start
    while t < end:
        agent = rng.choice(BOTS)
        ip = (
            f"66.249.66.{rng.randrange(1, 200)}"
            if "Google" in agent
            else f"157.55.39.{rng.randrange(1, 250)}"
        )
        path = rng.choice(("/robots.txt", "/sitemap.xml", f"/products/{rng.randrange(900, 99999)}"))
        status = 404 if path.startswith("/products/") and rng.random() < 0.15 else 200
        out.append(
            Rec(
                t,
                ip,
                "GET",
                path,
                status,
                rng.randrange(2000, 60000) if status == 200 else 3650,
                "-",
                agent,
                round(ms(rng, 0.01, 0.3), 3),
            )
        )
        t += timedelta(seconds=rng.expovariate(1 / 55))
    return out


SCAN_PATHS = (
    "/.env",
    "/.git/config",
    "/wp-login.php",
    "/wp-admin/setup-config.php",
    "/phpmyadmin/index.php",
    "/admin/config.php",
    "/.aws/credentials",
    "/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php",
    "/actuator/env",
    "/server-status",
    "/config.json",
    "/backup.zip",
    "/.DS_Store",
    "/xmlrpc.php",
    "/cgi-bin/luci/;stok=/locale",
    "/owa/auth/logon.aspx",
    "/api/.env",
    "/debug/pprof/",
)


def scanner(rng: random.Random, t: datetime) -> list[Rec]:
    """A vulnerability scanner burst: mostly 404, a few 403/400, HEAD and OPTIONS."""
    ip = "45.148.10.77"
    agents = (
        "Mozilla/5.0 (compatible; Nmap Scripting Engine; https://nmap.org/book/nse.html)",
        "Mozilla/5.0 zgrab/0.x",
        "Mozilla/5.0 \\x22Scanner\\x22/1.0",
    )
    out = [
        Rec(t, ip, "HEAD", "/", 200, 0, "-", agents[1], 0.004),
        Rec(t, ip, "OPTIONS", "/", 405, 157, "-", agents[1], 0.0),
    ]
    for path in SCAN_PATHS * 2:
        t += timedelta(seconds=rng.uniform(0.05, 1.5))
        status = 403 if path == "/server-status" else 400 if ";" in path else 404
        out.append(
            Rec(
                t,
                ip,
                rng.choice(("GET", "GET", "POST")),
                path,
                status,
                153 if status != 404 else 3650,
                "-",
                rng.choice(agents),
                0.001,
            )
        )
    return out


def long_query_rec(rng: random.Random, t: datetime) -> Rec:
    """A search URL with a ~3 KB query (tracking parameters and a pasted blob)."""
    blob = "".join(
        rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        for _ in range(2600)
    )
    target = (
        "/search?q=waterproof+hiking+boots&utm_source=newsletter&utm_medium=email"
        f"&utm_campaign=bf2026&fbclid={blob}&filters=size%3A44%2Ccolor%3Ablack"
    )
    return Rec(
        t,
        "91.64.12.201",
        "GET",
        target,
        200,
        41234,
        "https://l.facebook.com/",
        BROWSERS[2],
        0.213,
        "HTTP/2.0",
    )


def one_offs(rng: random.Random) -> list[Rec]:
    """IPv6 shoppers and an unusual percent-encoded product path."""
    out: list[Rec] = []
    for hour in (10, 12, 15):
        t = DAY.replace(hour=hour, minute=rng.randrange(60), second=rng.randrange(60))
        out += browse_session(rng, t, ipv6(rng))
    out.append(
        Rec(
            DAY.replace(hour=11, minute=7, second=41),
            "82.113.7.40",
            "GET",
            "/products/caf%C3%A9-au-lait-mug",
            200,
            27311,
            "https://www.google.com/",
            BROWSERS[1],
            0.087,
            "HTTP/2.0",
        )
    )
    out.append(long_query_rec(rng, DAY.replace(hour=12, minute=44, second=3)))
    return out


def clf(t: datetime, tz: timezone = UTC) -> str:
    """Common Log Format timestamp, e.g. 28/Nov/2026:13:55:36 +0000."""
    return t.astimezone(tz).strftime("%d/%b/%Y:%H:%M:%S %z")


def combined(r: Rec) -> str:
    """nginx combined format plus $request_time."""
    return (
        f'{r.ip} - {r.user} [{clf(r.when)}] "{r.method} {r.target} {r.proto}" {r.status} '
        f'{r.size} "{r.referer}" "{r.agent}" {r.seconds:.3f}'
    )


def tls_junk(rng: random.Random) -> str:
    """A TLS ClientHello as nginx logs it when it reaches a plain-HTTP port."""
    head = [0x16, 0x03, 0x01, 0x00, 0xA5, 0x01, 0x00, 0x00, 0xA1, 0x03, 0x03]
    body = head + [rng.randrange(256) for _ in range(40)]
    return "".join(f"\\x{b:02X}" for b in body)


def nginx_oddities(rng: random.Random) -> list[tuple[datetime, str]]:
    """The three malformed lines: TLS junk, an empty request, a cut-off line."""
    t1 = DAY.replace(hour=10, minute=52, second=17)
    t2 = DAY.replace(hour=13, minute=3, second=44)
    t3 = DAY.replace(hour=15, minute=21, second=9)
    cut = combined(
        Rec(
            t3,
            "176.12.83.9",
            "GET",
            "/api/v1/products/1042/reviews?page=2",
            200,
            5321,
            SITE + "/products/1042",
            BROWSERS[0],
            0.041,
        )
    )
    cut = cut[: cut.index('"GET ') + 27]
    return [
        (t1, f'193.32.162.159 - - [{clf(t1)}] "{tls_junk(rng)}" 400 157 "-" "-" 0.001'),
        (t2, f'185.242.226.18 - - [{clf(t2)}] "-" 400 0 "-" "-" 0.000'),
        (t3, cut),
    ]


def build_nginx(rng: random.Random) -> list[str]:
    """Six hours of a shop behind nginx, with a payment upstream outage."""
    start, end = DAY.replace(hour=10), DAY.replace(hour=16)
    recs: list[Rec] = []
    for _ in range(520):
        t = start + timedelta(seconds=rng.uniform(0, 6 * 3600))
        recs += browse_session(rng, t, public_ip(rng))
    for _ in range(20):
        t = INCIDENT[0] + timedelta(seconds=rng.uniform(0, 1200))
        recs += buyer_session(rng, t, public_ip(rng))
    recs += probes(start, end, 20, "/healthz", "kube-probe/1.31")
    recs += crawler(rng, start, end)
    recs += scanner(rng, DAY.replace(hour=11, minute=23, second=5))
    recs += one_offs(rng)
    entries = [(r.when, combined(r)) for r in recs] + nginx_oddities(rng)
    entries.sort(key=lambda e: e[0])
    return [text for _, text in entries]


# --------------------------------------------------------------- apache docs

APACHE_TZ = timezone(timedelta(hours=1))
DOC_PAGES = (
    "/",
    "/index.html",
    "/docs/",
    "/docs/manual/install.html",
    "/docs/manual/config.html",
    "/docs/manual/upgrade.html",
    "/docs/faq.html",
    "/downloads/",
    "/news/2026/11/release-2-4.html",
    "/wiki/index.php?title=Main_Page",
    "/wiki/index.php?title=Build_Farm&action=edit",
    "/~frank/notes.txt",
    "/docs/manual/mod/mod_rewrite.html",
)
DOC_ASSETS = {
    "/images/apache_pb.gif": 2326,
    "/images/logo.png": 8420,
    "/css/site.css": 5120,
    "/images/bg-header.jpg": 40218,
}
WIKI_DOWN = (DAY.replace(hour=9, minute=15), DAY.replace(hour=9, minute=24))


def common(r: Rec) -> str:
    """Apache common log format ('-' for an empty body), server time zone +0100."""
    size = str(r.size) if r.size else "-"
    return (
        f'{r.ip} - {r.user} [{clf(r.when, APACHE_TZ)}] "{r.method} {r.target} {r.proto}" '
        f"{r.status} {size}"
    )


def doc_page_status(rng: random.Random, page: str, t: datetime) -> int:
    """200 mostly; the wiki is down for maintenance for a few minutes."""
    if page.startswith("/wiki/") and WIKI_DOWN[0] <= t < WIKI_DOWN[1]:
        return 503
    if page.startswith("/wiki/") and rng.random() < 0.01:
        return 500
    return 404 if rng.random() < 0.03 else 200


def docs_visit(rng: random.Random, t: datetime, ip: str) -> list[Rec]:
    """A reader: a few pages with their images, maybe a download."""
    proto = rng.choice(("HTTP/1.1", "HTTP/1.1", "HTTP/1.0"))
    out, cached = [], False
    for _ in range(rng.choice((1, 1, 2, 3))):
        page = rng.choice(DOC_PAGES)
        status = doc_page_status(rng, page, t)
        out.append(Rec(t, ip, "GET", page, status, rng.randrange(4000, 30000), proto=proto))
        for path, size in DOC_ASSETS.items():
            t += timedelta(seconds=rng.uniform(0.05, 0.5))
            out.append(
                Rec(t, ip, "GET", path, 304 if cached else 200, 0 if cached else size, proto=proto)
            )
        cached = True
        t += timedelta(seconds=rng.expovariate(1 / 40))
    if rng.random() < 0.15:
        partial = rng.random() < 0.2
        out.append(
            Rec(
                t,
                ip,
                "GET",
                f"/downloads/tool-2.4.{rng.randrange(0, 9)}.tar.gz",
                206 if partial else 200,
                rng.randrange(4_000_000, 9_000_000),
                proto=proto,
            )
        )
    return out


def report_user(rng: random.Random, t: datetime) -> list[Rec]:
    """Basic-auth users running the report CGI (which crashes now and then)."""
    ip = f"192.168.{rng.choice((10, 20))}.{rng.randrange(2, 250)}"
    user = rng.choice(("frank", "alice", "bob", "-"))
    if user == "-":
        return [Rec(t, ip, "GET", "/private/reports/", 401, 381)]
    rid = rng.randrange(100, 999)
    status = 500 if rng.random() < 0.1 else 200
    out = [
        Rec(
            t,
            ip,
            "GET",
            f"/cgi-bin/report.cgi?id={rid}&fmt=csv",
            status,
            535 if status == 500 else rng.randrange(2000, 90000),
            user=user,
        )
    ]
    if status == 200:
        t += timedelta(seconds=rng.uniform(2, 20))
        out.append(
            Rec(
                t,
                ip,
                "GET",
                f"/private/reports/2026/{rid}.pdf",
                200,
                rng.randrange(40000, 400000),
                user=user,
            )
        )
    return out


def legacy_api(rng: random.Random, t: datetime) -> Rec:
    """A cron job polling the proxied legacy order API over HTTP/1.0."""
    oid = rng.randrange(70000, 79999)
    status = 502 if rng.random() < 0.012 else 404 if rng.random() < 0.05 else 200
    size = {502: 401, 404: 209}.get(status, rng.randrange(300, 2000))
    return Rec(t, "10.20.0.5", "GET", f"/api/legacy/orders/{oid}", status, size, proto="HTTP/1.0")


def apache_internal(t: datetime, k: int) -> Rec:
    """mod_status polling and Apache's own dummy connections from ::1."""
    if k % 4 == 3:
        return Rec(t, "::1", "OPTIONS", "*", 200, 0, proto="HTTP/1.0")
    return Rec(t, "::1", "GET", "/server-status?auto", 200, 812)


def apache_oddities(rng: random.Random) -> list[tuple[datetime, str]]:
    """Request-timeout lines: Apache logs '"-" 408 -' for silent connections."""
    out = []
    for hour in (8, 11, 15):
        t = DAY.replace(hour=hour, minute=rng.randrange(60), second=rng.randrange(60))
        out.append((t, f'{public_ip(rng)} - - [{clf(t, APACHE_TZ)}] "-" 408 -'))
    return out


def build_apache(rng: random.Random) -> list[str]:
    """A day (07:00-17:00 UTC) of a documentation/intranet server on Apache."""
    start = DAY.replace(hour=7)
    span = 10 * 3600
    recs: list[Rec] = []
    for _ in range(420):
        recs += docs_visit(rng, start + timedelta(seconds=rng.uniform(0, span)), public_ip(rng))
    for _ in range(210):
        recs += report_user(rng, start + timedelta(seconds=rng.uniform(0, span)))
    recs += [legacy_api(rng, start + timedelta(seconds=s)) for s in range(0, span, 90)]
    recs += [apache_internal(start + timedelta(seconds=s), s // 300) for s in range(0, span, 300)]
    entries = [(r.when, common(r)) for r in recs] + apache_oddities(rng)
    entries.sort(key=lambda e: e[0])
    return [text for _, text in entries]


# ------------------------------------------------------------------ app jsonl

APP_AGENTS = (
    "okhttp/4.12.0",
    "MyShop/5.12.1 (iPhone; iOS 18.1; Scale/3.00)",
    "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/AP2A.240905.003)",
    "MyShop/5.12.1 (iPad; iOS 17.6; Scale/2.00)",
)


def app_json(r: Rec) -> str:
    """One JSON object with the fixed key order, millisecond UTC time."""
    stamp = r.when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{r.when.microsecond // 1000:03d}Z"
    return json.dumps(
        {
            "time": stamp,
            "remote_addr": r.ip,
            "method": r.method,
            "path": r.target,
            "status": r.status,
            "bytes": r.size,
            "request_time": r.seconds,
            "user_agent": r.agent,
        },
        separators=(",", ":"),
    )


def uuid4(rng: random.Random) -> str:
    """A random version-4 UUID string."""
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[rng.randrange(4)]}{h[17:20]}-{h[20:]}"


Call = tuple[str, str, int, int, float]  # method, target, status, bytes, seconds


def app_call(rng: random.Random, t: datetime, ip: str, agent: str) -> Rec:
    """One API call of a mobile client."""
    uid = rng.randrange(1, 250_000)
    roll = rng.random()
    if roll < 0.40:
        call = item_call(rng)
    elif roll < 0.55:
        call = feed_call(rng, uid)
    elif roll < 0.75:
        call = graphql_call(rng)
    else:
        call = app_misc(rng, uid)
    method, target, status, size, secs = call
    return Rec(t, ip, method, target, status, size, agent=agent, seconds=secs)


def item_call(rng: random.Random) -> Call:
    """Item detail (very rarely a 500)."""
    target = f"/api/v2/items/{uuid4(rng)}"
    status = 500 if rng.random() < 0.003 else 200
    return "GET", target, status, rng.randrange(600, 4000), ms(rng, 0.004, 0.09)


def feed_call(rng: random.Random, uid: int) -> Call:
    """Personal feed page (503 when the feed service sheds load)."""
    bad = rng.random() < 0.015
    target = f"/api/v2/users/{uid}/feed?cursor={rng.getrandbits(40):x}"
    size = 96 if bad else rng.randrange(5000, 40000)
    return "GET", target, 503 if bad else 200, size, ms(rng, 0.03, 0.6)


def graphql_call(rng: random.Random) -> Call:
    """A GraphQL query (500 on resolver errors)."""
    bad = rng.random() < 0.025
    size = 121 if bad else rng.randrange(200, 20000)
    return "POST", "/graphql", 500 if bad else 200, size, ms(rng, 0.01, 0.8)


def app_misc(rng: random.Random, uid: int) -> Call:
    """Less frequent calls: event batches, settings, deletes, search, uploads."""
    roll = rng.random()
    secs = round(ms(rng, 0.002, 0.2), 6)
    if roll < 0.35:
        return "POST", "/api/v2/events", 202, 0, secs
    if roll < 0.5:
        status = rng.choice((200, 200, 422))
        return "PUT", f"/api/v2/users/{uid}/settings", status, rng.randrange(80, 600), secs
    if roll < 0.6:
        return "DELETE", f"/api/v2/items/{uuid4(rng)}", rng.choice((204, 204, 404)), 0, secs
    if roll < 0.8:
        q = rng.choice(("café", "crème brûlée", "naïve", "tea", "coffee+beans"))
        return "GET", f"/api/v2/search?q={q}&limit=20", 200, rng.randrange(1000, 30000), secs
    oid = rng.choice("abcdef") + f"{rng.getrandbits(92):023x}"
    status = 502 if rng.random() < 0.04 else 201
    size = 150 if status == 502 else 310
    return "POST", f"/api/v2/uploads/{oid}", status, size, round(ms(rng, 0.2, 4.0), 6)


def app_session(rng: random.Random, t: datetime) -> list[Rec]:
    """A mobile app session: a handful of API calls a few seconds apart."""
    ip, agent = public_ip(rng), rng.choice(APP_AGENTS)
    out = []
    for _ in range(rng.randrange(2, 12)):
        rec = app_call(rng, t, ip, agent)
        out.append(replace(rec, seconds=round(rec.seconds, 6)))
        t += timedelta(seconds=rng.expovariate(1 / 6), microseconds=rng.randrange(1000))
    return out


def report_export(rng: random.Random, t: datetime) -> Rec:
    """Dashboard exports: slow, and they hit the 60 s gateway timeout often."""
    timeout = rng.random() < 0.4
    return Rec(
        t,
        f"10.8.{rng.randrange(0, 4)}.{rng.randrange(2, 60)}",
        "GET",
        f"/api/v2/reports/{uuid4(rng)}/export?format=csv",
        504 if timeout else 200,
        84 if timeout else rng.randrange(20_000, 900_000),
        agent="axios/1.7.7",
        seconds=round(60 + rng.uniform(0, 0.004), 6) if timeout else round(ms(rng, 2.0, 45.0), 6),
    )


def app_oddity(t: datetime) -> tuple[datetime, str]:
    """A record cut off mid-object (the writer was killed): not valid JSON."""
    rec = Rec(
        t,
        "84.17.40.2",
        "GET",
        "/api/v2/items/9b2f6c1e-5d7a-4c3e-9f1b-2a8d7e6c5b4a",
        200,
        1876,
        agent=APP_AGENTS[0],
        seconds=0.0213,
    )
    return t, app_json(rec)[:117]


def build_app(rng: random.Random) -> list[str]:
    """Four hours of a JSON-logging API service behind a load balancer."""
    start = DAY.replace(hour=8)
    span = 4 * 3600
    recs: list[Rec] = []
    for _ in range(330):
        t = start + timedelta(seconds=rng.uniform(0, span), microseconds=rng.randrange(10**6))
        recs += app_session(rng, t)
    recs += [report_export(rng, start + timedelta(seconds=rng.uniform(0, span))) for _ in range(70)]
    recs += [
        Rec(
            start + timedelta(seconds=s, milliseconds=s % 997),
            f"10.8.0.{1 + s % 2}",
            "GET",
            "/healthz",
            200,
            15,
            agent="ELB-HealthChecker/2.0",
            seconds=0.000412,
        )
        for s in range(0, span, 30)
    ]
    entries = [(r.when, app_json(r)) for r in recs]
    entries.append(app_oddity(DAY.replace(hour=10, minute=31, second=2, microsecond=519000)))
    entries.sort(key=lambda e: e[0])
    return [text for _, text in entries]


# ------------------------------------------------- independent expected answers

# A request that is not "METHOD TARGET HTTP/x" (TLS junk, "-") is still a record
# with a status: it counts under the route "(invalid request)", not as malformed.
_REQUEST = r'"(?:([A-Z]+) (\S+) HTTP/\d(?:\.\d)?|[^"]*)"'
INVALID_REQUEST = "(invalid request)"
LINE_RES = {
    "combined": re.compile(
        r"^\S+ \S+ \S+ \[[^\]]+\] "
        + _REQUEST
        + r' (\d{3}) (?:\d+|-) "[^"]*" "[^"]*"(?: \d+(?:\.\d+)?)?$'
    ),
    "common": re.compile(r"^\S+ \S+ \S+ \[[^\]]+\] " + _REQUEST + r" (\d{3}) (?:\d+|-)$"),
}
JSON_KEYS = {
    "time",
    "remote_addr",
    "method",
    "path",
    "status",
    "bytes",
    "request_time",
    "user_agent",
}
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HEXSEG = re.compile(r"^[0-9a-fA-F]{16,}$")


def normalize(path: str) -> str:
    """Route of a raw path: drop the query, then {id}/{uuid}/{hex} segments."""
    segments = path.split("?", 1)[0].split("/")
    out = []
    for seg in segments:
        if seg.isdigit() and seg.isascii():
            out.append("{id}")
        elif _UUID.match(seg):
            out.append("{uuid}")
        elif _HEXSEG.match(seg):
            out.append("{hex}")
        else:
            out.append(seg)
    return "/".join(out)


def parse_line(line: str, fmt: str) -> tuple[str | None, int] | None:
    """(raw path or None for an invalid request, status) of a valid record of ``fmt``, else None."""
    if fmt != "jsonl":
        m = LINE_RES[fmt].match(line)
        return (m.group(2), int(m.group(3))) if m else None
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if not isinstance(obj, dict) or set(obj) != JSON_KEYS or type(obj["status"]) is not int:
        return None
    return (obj["path"], obj["status"]) if isinstance(obj["path"], str) else None


def expected_for(lines: Iterable[str], fmt: str) -> dict[str, Any]:
    """The expected answers of a sample file, from a simple line-by-line parse."""
    total = malformed = 0
    status: Counter[int] = Counter()
    errors: Counter[str] = Counter()
    for line in lines:
        total += 1
        parsed = parse_line(line, fmt)
        if parsed is None:
            malformed += 1
            continue
        status[parsed[1]] += 1
        if 500 <= parsed[1] <= 599:
            errors[INVALID_REQUEST if parsed[0] is None else normalize(parsed[0])] += 1
    top = sorted(errors.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    return {
        "format": fmt,
        "lines": total,
        "malformed_lines": malformed,
        "top_errors": [[k, v] for k, v in top],
        "status": {str(k): status[k] for k in sorted(status)},
        "routes_5xx_total": sum(errors.values()),
    }


def read_lines(path: Path) -> list[str]:
    """Lines of a file without their newline (UTF-8, bad bytes replaced)."""
    return path.read_bytes().decode("utf-8", errors="replace").split("\n")[:-1]


SAMPLES: dict[str, tuple[str, Callable[[random.Random], list[str]], int]] = {
    "nginx_access.log": ("combined", build_nginx, 11),
    "apache_access.log": ("common", build_apache, 12),
    "app_access.jsonl": ("jsonl", build_app, 13),
}


def write_sample(out_dir: Path, name: str) -> dict[str, Any]:
    """Write one sample and its expected JSON (computed by re-reading it)."""
    fmt, build, seed = SAMPLES[name]
    path = out_dir / name
    path.write_text("\n".join(build(random.Random(seed))) + "\n", encoding="utf-8")
    expected = expected_for(read_lines(path), fmt)
    Path(f"{path}.expected.json").write_text(
        json.dumps(expected, indent=2) + "\n", encoding="utf-8"
    )
    return expected


def main(argv: list[str] | None = None) -> int:
    """Write all samples into OUT_DIR (default: sample_logs)."""
    args = sys.argv[1:] if argv is None else argv
    out_dir = Path(args[0] if args else "sample_logs")
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in SAMPLES:
        exp = write_sample(out_dir, name)
        print(
            f"{name}: {exp['lines']} lines, {exp['malformed_lines']} malformed, "
            f"top {exp['top_errors'][:2]}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
