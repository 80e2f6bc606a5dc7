"""PURE module: a day of a documentation/intranet server, as ``apache_access.log`` lines.

:func:`build_apache` mixes readers of the docs (pages, images, downloads),
basic-auth users of a report CGI, a cron job polling a proxied legacy API,
Apache's own ``::1`` requests and request-timeout lines, and formats them in
Apache ``common`` format in the server's time zone (+0100).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

from .access_records import DAY, Rec, clf, public_ip

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
