"""PURE module: six hours of the shop behind nginx, as ``nginx_access.log`` lines.

:func:`build_nginx` mixes the visitors of ``access_shop_visits`` with health
probes, search engine crawlers, a vulnerability scanner burst, IPv6 shoppers,
a ~3 KB query and three malformed lines, and formats them as nginx
``combined`` plus ``$request_time``.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from .access_records import BOTS, BROWSERS, DAY, SITE, Rec, clf, ipv6, ms, public_ip
from .access_shop_visits import INCIDENT, browse_session, buyer_session


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
