"""PURE module: four hours of a JSON-logging API service, as ``app_access.jsonl`` lines.

:func:`build_app` mixes mobile app sessions (items, feeds, GraphQL, events,
settings, search, uploads), slow dashboard exports that hit the gateway
timeout, load-balancer health checks and one record cut off mid-object, each
written as one JSON object with a fixed key order.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from datetime import datetime, timedelta

from .access_records import DAY, Rec, ms, public_ip, uuid4

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
