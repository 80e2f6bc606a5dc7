"""Bearer keys (PURE apart from reading the key file once at start)."""

from __future__ import annotations

import hmac
import ipaddress

from logagent.errors import ConfigError


def load_keys(path: str) -> tuple[str, ...]:
    """The keys of ``path``: one per line; blank lines and ``#`` comments skipped."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read the API key file ({exc.strerror})", path=path) from exc
    keys = tuple(k.strip() for k in lines if k.strip() and not k.strip().startswith("#"))
    if not keys:
        raise ConfigError("the API key file holds no key", path=path)
    return keys


def authorized(header: str | None, keys: tuple[str, ...]) -> bool:
    """Whether an ``Authorization`` header carries one of ``keys`` (constant time per key)."""
    scheme, _, token = (header or "").partition(" ")
    given = token.strip().encode()
    ok = False
    for key in keys:  # every key is compared: the time does not say which one came close
        ok |= hmac.compare_digest(given, key.encode())
    return ok and scheme.lower() == "bearer"


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
