"""PURE module: route templates, per-route traffic/method/status mixes.

Templates only use the placeholders ``{id}``, ``{uuid}`` and ``{hex}`` as
whole path segments, and their fixed segments are never all-digits,
UUID-like or long hex, so normalizing any raw path generated from a
template gives back exactly the template string.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SLOT_NONE, SLOT_ID, SLOT_UUID, SLOT_HEX = 0, 1, 2, 3
MAX_SLOTS = 3
PLACEHOLDERS = {"{id}": SLOT_ID, "{uuid}": SLOT_UUID, "{hex}": SLOT_HEX}

METHODS = ("GET", "POST", "PUT", "DELETE")
OK_CODES = (200, 201, 204, 206, 301, 302, 304, 400, 401, 403, 404, 405, 409, 422, 429, 499)
ERROR_CODES = (500, 502, 503, 504)
ERROR_CODE_WEIGHTS = (0.22, 0.36, 0.28, 0.14)

# kind -> (method weights over METHODS, status weights {code: w})
KIND_MIX: dict[str, tuple[tuple[float, ...], dict[int, float]]] = {
    "static": ((1, 0, 0, 0), {200: 70, 304: 26, 206: 1, 404: 2, 499: 1}),
    "page": ((97, 3, 0, 0), {200: 88, 304: 5, 302: 3, 404: 2, 401: 1, 499: 1}),
    "collection": (
        (80, 20, 0, 0),
        {200: 86, 201: 4, 304: 2, 400: 2, 401: 2, 403: 1, 404: 1, 422: 1, 429: 1},
    ),
    "item": (
        (75, 0, 15, 10),
        {200: 84, 204: 3, 304: 2, 400: 1, 401: 2, 403: 1, 404: 5, 409: 1, 429: 1},
    ),
    "health": ((1, 0, 0, 0), {200: 1}),
    "auth": ((40, 60, 0, 0), {200: 60, 302: 25, 401: 12, 429: 3}),
    "webhook": ((0, 1, 0, 0), {200: 90, 204: 5, 400: 3, 401: 2}),
    "redirect": ((1, 0, 0, 0), {301: 90, 302: 10}),
    "admin": ((80, 10, 5, 5), {200: 70, 302: 10, 401: 10, 403: 9, 405: 1}),
}
# kind -> (median body bytes, median request time in ms)
KIND_SIZE: dict[str, tuple[float, float]] = {
    "static": (18000, 2),
    "page": (24000, 60),
    "collection": (3500, 45),
    "item": (1200, 25),
    "health": (15, 1),
    "auth": (900, 120),
    "webhook": (60, 80),
    "redirect": (162, 1),
    "admin": (9000, 90),
}

_KIND_PENALTY = {"health": 0.2, "auth": 0.3, "redirect": 0.5, "webhook": 0.6, "admin": 0.8}
_V1 = {
    "users": ("orders", "addresses"),
    "orders": ("items", "shipments"),
    "products": ("reviews", "images"),
    "carts": ("items", "checkout"),
    "invoices": ("lines", "download"),
    "reviews": ("votes", "replies"),
    "accounts": ("balance", "statements"),
    "shipments": ("tracking", "label"),
    "coupons": ("redeem", "usage"),
    "categories": ("products", "children"),
    "inventory": ("levels", "moves"),
    "notifications": ("read", "settings"),
    "subscriptions": ("renew", "cancel"),
    "messages": ("thread", "attachments"),
    "teams": ("members", "invites"),
    "projects": ("tasks", "files"),
    "sessions": ("refresh", "devices"),
    "wishlists": ("items", "share"),
    "stores": ("hours", "stock"),
    "vendors": ("payouts", "contracts"),
    "brands": ("products", "logo"),
    "tickets": ("comments", "assign"),
    "loyalty": ("points", "history"),
    "gift-cards": ("balance", "redeem"),
}
_V2 = (
    "payments",
    "refunds",
    "documents",
    "events",
    "devices",
    "tenants",
    "webhooks",
    "exports",
    "jobs",
    "tokens",
)
_STATIC = (
    "css/main.css",
    "css/vendor.css",
    "css/print.css",
    "js/app.js",
    "js/vendor.js",
    "js/runtime.js",
    "js/polyfills.js",
    "js/analytics.js",
    "img/logo.png",
    "img/logo@2x.png",
    "img/hero.jpg",
    "img/sprite.svg",
    "img/avatar-default.png",
    "fonts/inter-regular.woff2",
    "fonts/inter-bold.woff2",
    "fonts/icons.woff2",
    "img/banner-sale.webp",
    "img/footer-bg.jpg",
)
_PAGES = (
    "/",
    "/products",
    "/search",
    "/cart",
    "/checkout",
    "/login",
    "/signup",
    "/account",
    "/about",
    "/contact",
    "/help",
    "/blog",
    "/blog/release-notes",
    "/blog/holiday-sale",
    "/docs",
    "/docs/getting-started",
    "/docs/api",
    "/pricing",
    "/careers",
    "/terms",
    "/privacy",
)


@dataclass(frozen=True)
class Route:
    """One route template with its behaviour class."""

    template: str
    kind: str


def _api_routes() -> list[Route]:
    """Versioned REST API templates (v1 numeric ids, v2 uuids)."""
    out: list[Route] = []
    for res, subs in _V1.items():
        out.append(Route(f"/api/v1/{res}", "collection"))
        out.append(Route(f"/api/v1/{res}/{{id}}", "item"))
        out.extend(Route(f"/api/v1/{res}/{{id}}/{s}", "collection") for s in subs)
    for res in _V2:
        out.append(Route(f"/api/v2/{res}", "collection"))
        out.append(Route(f"/api/v2/{res}/{{uuid}}", "item"))
        out.append(Route(f"/api/v2/{res}/{{uuid}}/status", "item"))
    return out


_MISC: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "static",
        (
            "/assets/{hex}/app.js",
            "/assets/{hex}/app.css",
            "/media/{hex}/original",
            "/media/{hex}/thumb",
            "/favicon.ico",
            "/robots.txt",
            "/sitemap.xml",
        ),
    ),
    ("health", ("/health", "/healthz", "/metrics", "/ready")),
    ("auth", ("/auth/login", "/auth/logout", "/auth/token", "/oauth/callback")),
    ("webhook", ("/webhooks/stripe", "/webhooks/github", "/webhooks/slack")),
    ("redirect", ("/home", "/index.html", "/shop", "/old/blog")),
    ("admin", ("/admin", "/admin/users/{id}", "/admin/orders/{id}/refund", "/admin/reports/daily")),
    (
        "item",
        (
            "/api/v1/users/{id}/orders/{id}",
            "/api/v1/users/{id}/orders/{id}/items",
            "/api/v1/users/{id}/orders/{id}/invoice",
        ),
    ),
    ("collection", ("/api/v1/search",)),
    (
        "item",
        (
            "/api/v1/products/{id}/reviews/{id}",
            "/api/v2/tenants/{uuid}/users/{id}",
            "/api/v2/documents/{uuid}/versions/{hex}",
        ),
    ),
)


def _misc_routes() -> list[Route]:
    """Pages, static assets, health checks and other odds and ends."""
    out = [Route(p, "page") for p in _PAGES]
    out += [Route(f"/static/{s}", "static") for s in _STATIC]
    out += [Route(t, kind) for kind, templates in _MISC for t in templates]
    return out


def _popularity_order(routes: list[Route]) -> list[Route]:
    """Order routes from most to least requested (fixed, seed-free)."""
    first = (
        "/health",
        "/static/js/app.js",
        "/static/css/main.css",
        "/",
        "/api/v1/products",
        "/api/v1/users/{id}",
        "/api/v1/search",
        "/favicon.ico",
        "/api/v1/carts/{id}",
        "/metrics",
    )
    head = [r for t in first for r in routes if r.template == t]
    rest = [r for r in routes if r.template not in first]
    noise = np.random.default_rng(20261128).random(len(rest))
    key = noise + np.array([_KIND_PENALTY.get(r.kind, 0.0) for r in rest])
    return head + [rest[int(i)] for i in np.argsort(key, kind="stable")]


def standard_routes() -> list[Route]:
    """About 200 realistic templates ordered by popularity."""
    return _popularity_order(_api_routes() + _misc_routes())


_HC_TEMPLATES = (
    "/api/v1/users/{id}/orders/{id}",
    "/api/v1/users/{id}/events/{id}",
    "/api/v1/orders/{id}/items/{id}",
    "/api/v1/products/{id}/variants/{id}",
    "/api/v2/objects/{uuid}/versions/{hex}",
    "/api/v2/payments/{uuid}",
    "/api/v2/tenants/{uuid}/users/{id}/sessions/{uuid}",
    "/cdn/{hex}/{id}",
    "/media/{hex}/original",
    "/media/{hex}/thumb",
    "/api/v1/carts/{id}",
    "/api/v1/sessions/{hex}",
    "/api/v2/devices/{uuid}/telemetry/{id}",
    "/blobs/{hex}",
    "/api/v1/accounts/{id}/statements/{id}/lines/{id}",
    "/api/v2/jobs/{uuid}/logs/{id}",
    "/api/v2/exports/{uuid}/parts/{id}",
    "/api/v1/messages/{id}/attachments/{hex}",
    "/api/v2/documents/{uuid}/pages/{id}",
    "/track/{hex}/{uuid}",
    "/api/v1/shipments/{id}/tracking/{hex}",
    "/u/{id}",
    "/p/{hex}",
    "/api/v1/teams/{id}/members/{id}",
    "/api/v2/tokens/{hex}/revoke",
    "/api/v1/invoices/{id}/download",
    "/api/v2/refunds/{uuid}/status",
    "/api/v1/reviews/{id}/votes/{id}",
    "/api/v1/wishlists/{id}/items/{id}",
    "/api/v2/events/{uuid}/attendees/{id}",
    "/img/{hex}/{id}/{id}",
    "/api/v1/stores/{id}/stock/{id}",
    "/api/v1/vendors/{id}/payouts/{hex}",
    "/api/v2/webhooks/{uuid}/deliveries/{uuid}",
)


def high_cardinality_routes() -> list[Route]:
    """About 40 templates dense with placeholders."""
    tpl = _HC_TEMPLATES
    fixed = ["/health", "/", "/static/js/app.js", "/favicon.ico", "/api/v1/search", "/login"]
    kinds = ["health", "page", "static", "static", "collection", "page"]
    routes = [Route(t, "item") for t in tpl]
    routes[1:1] = [Route(t, k) for t, k in zip(fixed, kinds, strict=True)]
    return routes


def split_template(template: str) -> tuple[list[str], list[int]]:
    """Split a template into MAX_SLOTS+1 fixed parts and MAX_SLOTS slots."""
    fixed: list[str] = []
    slots: list[int] = []
    cur: list[str] = []
    for i, seg in enumerate(template.split("/")):
        piece = ("/" if i else "") + seg
        if seg in PLACEHOLDERS:
            fixed.append("".join(cur) + ("/" if i else ""))
            slots.append(PLACEHOLDERS[seg])
            cur = []
        else:
            cur.append(piece)
    fixed.append("".join(cur))
    if len(slots) > MAX_SLOTS:
        raise ValueError(f"too many placeholders in {template}")
    pad = MAX_SLOTS - len(slots)
    return fixed + [""] * pad, slots + [SLOT_NONE] * pad


def cdf_rows(rows: list[list[float]]) -> npt.NDArray[np.float64]:
    """Row-normalized cumulative distributions, last column exactly 1."""
    mat = np.asarray(rows, dtype=np.float64)
    cdf = np.cumsum(mat / mat.sum(axis=1, keepdims=True), axis=1)
    cdf[:, -1] = 1.0
    return cdf


def traffic_weights(n_routes: int, exponent: float = 1.05) -> npt.NDArray[np.float64]:
    """Zipf-like request share of each route rank."""
    w = 1.0 / np.arange(2, n_routes + 2, dtype=np.float64) ** exponent
    out: npt.NDArray[np.float64] = w / w.sum()
    return out
