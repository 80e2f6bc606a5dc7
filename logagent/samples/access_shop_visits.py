"""PURE module: the shop's visitors for ``nginx_access.log`` (see ``access_shop``).

A :class:`Session` is one visitor with a running clock; a page view brings its
static assets and the XHR calls the front end makes (recommendations, product
detail, search, cart, checkout and payment, order history). During
``INCIDENT`` the payment upstream fails, so the checkout retries.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from .access_records import BROWSERS, DAY, SITE, Rec, ms

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
