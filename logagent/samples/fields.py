"""PURE module: vectorized builders for log fields (numpy -> arrow strings).

Nothing here loops over log lines in Python; every function works on
whole columns.  Lookup pools (time strings, user agents, ...) are small
and cached.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt

from ._arrow import ArrowArray, pa, pc, ragged_strings, strings_from_pylist

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

DAY_START_MS = int(datetime(2026, 11, 28, tzinfo=UTC).timestamp() * 1000)
DAY_SPAN_MS = 86_400_000 - 1  # last line is stamped 23:59:59.999Z

_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_LETTERS = np.frombuffer(b"abcdef", dtype=np.uint8)
_POW10 = 10 ** np.arange(19, dtype=np.int64)
SLOT_WIDTH = 40

USER_AGENTS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) "
    "AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 "
    "Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "curl/8.5.0",
    "python-requests/2.32.3",
    "okhttp/4.12.0",
    "Go-http-client/1.1",
    "kube-probe/1.31",
)
UA_WEIGHTS = (24, 16, 14, 6, 12, 6, 6, 3, 2, 3, 3, 4, 1, 0)
PROBE_UA = len(USER_AGENTS) - 1

REFERERS = (
    "-",
    "https://shop.example.com/",
    "https://shop.example.com/products",
    "https://shop.example.com/cart",
    "https://shop.example.com/search?q=running+shoes",
    "https://www.google.com/",
    "https://www.bing.com/",
    "https://t.co/",
    "android-app://com.google.android.gm/",
)
REFERER_WEIGHTS = (55, 14, 9, 5, 4, 8, 2, 2, 1)
PROTOCOLS = ("HTTP/1.1", "HTTP/2.0", "HTTP/1.0")
PROTOCOL_WEIGHTS = (78, 20, 2)
USERS = ("-", "frank", "alice", "bob", "svc-backup")
USER_WEIGHTS = (970, 12, 9, 6, 3)
QUERY_PREFIXES = (
    "",
    "?v=",
    "?utm_source=google&utm_medium=cpc&utm_campaign=",
    "?ref=email&id=",
    "?q=shoes&page=",
    "?lang=en&currency=USD&t=",
    "?page=",
    "?page=2&per_page=",
    "?limit=50&offset=",
    "?sort=price_asc&page=",
    "?include=items&expand=",
    "?session=",
)
# kind family -> weights over QUERY_PREFIXES[1:]
QUERY_WEIGHTS = {
    "static": (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    "page": (0, 5, 3, 3, 1, 0, 0, 0, 0, 0, 0),
    "api": (0, 0, 0, 0, 0, 5, 2, 3, 2, 2, 1),
}


def probabilities(weights: tuple[int, ...]) -> F64:
    """Normalize integer weights into probabilities."""
    arr = np.asarray(weights, dtype=np.float64)
    out: F64 = arr / arr.sum()
    return out


@functools.cache
def pool(values: tuple[str, ...]) -> ArrowArray:
    """Arrow string array for a small tuple of strings (cached)."""
    return strings_from_pylist(list(values))


@functools.cache
def time_pools() -> tuple[ArrowArray, ArrowArray, ArrowArray]:
    """Per-second CLF and ISO time strings of the day, plus '000'..'999'."""
    secs = np.arange(86_400, dtype=np.int64)
    hh, mm, ss = secs // 3600, secs // 60 % 60, secs % 60
    hms = [f"{h:02d}:{m:02d}:{s:02d}" for h, m, s in zip(hh, mm, ss, strict=True)]
    clf = [f"28/Nov/2026:{t} +0000" for t in hms]
    iso = [f"2026-11-28T{t}" for t in hms]
    millis = [f"{i:03d}" for i in range(1000)]
    return (strings_from_pylist(clf), strings_from_pylist(iso), strings_from_pylist(millis))


def record_times_ms(first: int, count: int, n_records: int) -> I64:
    """Millisecond offsets within the day of records [first, first+count).

    Record i of n is stamped at i * DAY_SPAN_MS // (n - 1): strictly
    non-decreasing and ending exactly at 23:59:59.999.
    """
    idx = np.arange(first, first + count, dtype=np.int64)
    return idx * DAY_SPAN_MS // max(n_records - 1, 1)


def splitmix64(x: U64) -> U64:
    """SplitMix64 finalizer: a fast, well-mixed uint64 -> uint64 hash."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def hex_matrix(keys: U64, width: int) -> U8:
    """Rows of ``width`` lowercase hex digits derived from ``keys``."""
    shifts = np.arange(60, -4, -4, dtype=np.uint64)
    words = []
    for j in range((width + 15) // 16):
        with np.errstate(over="ignore"):
            w = splitmix64(keys + np.uint64(j * 0x632BE59BD9B4E019))
        words.append(((w[:, None] >> shifts) & np.uint64(15)).astype(np.uint8))
    return _HEX[np.concatenate(words, axis=1)[:, :width]]


def uuid_matrix(keys: U64) -> U8:
    """Rows of 36-char version-4 UUID text derived from ``keys``."""
    h = hex_matrix(keys, 32)
    h[:, 12] = ord("4")
    h[:, 16] = np.frombuffer(b"89ab", dtype=np.uint8)[keys % np.uint64(4)]
    dash = np.full((len(keys), 1), ord("-"), dtype=np.uint8)
    parts = [h[:, :8], dash, h[:, 8:12], dash, h[:, 12:16], dash, h[:, 16:20], dash, h[:, 20:]]
    return np.concatenate(parts, axis=1)


def digit_matrix(values: I64) -> tuple[U8, I64]:
    """Left-aligned ASCII decimal digits of non-negative ints and lengths."""
    nd = 1 + (values[:, None] >= _POW10[None, 1:]).sum(axis=1)
    cols = np.arange(19, dtype=np.int64)
    exp = np.clip(nd[:, None] - 1 - cols[None, :], 0, 18)
    digits = (values[:, None] // _POW10[exp]) % 10 + ord("0")
    return digits.astype(np.uint8), nd.astype(np.int64)


def slot_strings(types: I64, keys: U64, hex_lens: I64) -> ArrowArray:
    """Placeholder values per row: '' / id digits / uuid / hex by type."""
    n = len(types)
    mat = np.zeros((n, SLOT_WIDTH), dtype=np.uint8)
    lens = np.zeros(n, dtype=np.int64)
    rows = np.flatnonzero(types == 1)
    if len(rows):
        ids = (keys[rows] % np.uint64(10**15)).astype(np.int64)
        mat[rows, :19], lens[rows] = digit_matrix(ids)
    rows = np.flatnonzero(types == 2)
    if len(rows):
        mat[rows, :36], lens[rows] = uuid_matrix(keys[rows]), 36
    rows = np.flatnonzero(types == 3)
    if len(rows):
        hexes = hex_matrix(keys[rows], SLOT_WIDTH)
        # first char a letter: the value can never be all digits -> {id}
        hexes[:, 0] = _LETTERS[keys[rows] % np.uint64(6)]
        mat[rows], lens[rows] = hexes, hex_lens[rows]
    return ragged_strings(mat, lens)


def cond_sample(flat_cdf: F64, n_cat: int, rows: I64, u: F64) -> I64:
    """Sample category per row from row-specific CDFs in one searchsorted.

    ``flat_cdf`` is ``(cdf + row_index[:, None]).ravel()`` of a
    (rows x n_cat) CDF matrix; returns category indices in [0, n_cat).
    """
    pos = np.searchsorted(flat_cdf, rows + u, side="right")
    out: I64 = np.minimum(pos - rows * n_cat, n_cat - 1).astype(np.int64)
    return out


def flatten_cdf(cdf: F64) -> F64:
    """Prepare a CDF matrix for :func:`cond_sample`."""
    return (cdf + np.arange(cdf.shape[0], dtype=np.float64)[:, None]).ravel()


def ip_pool(rng: np.random.Generator, size: int) -> ArrowArray:
    """Random public-looking IPv4 client addresses."""
    firsts = np.array(
        [23, 31, 45, 66, 73, 81, 93, 104, 142, 157, 172, 185, 188, 198, 203, 212], dtype=np.int64
    )
    octets = [firsts[rng.integers(0, len(firsts), size)]]
    octets += [rng.integers(0, 256, size) for _ in range(2)]
    octets.append(rng.integers(1, 255, size))
    parts = [pa.array(o).cast(pa.string()) for o in octets]
    return pc.binary_join_element_wise(*parts, ".")


def empty_if(mask: npt.NDArray[np.bool_], values: ArrowArray, fill: str = "") -> ArrowArray:
    """Replace values by ``fill`` ('' by default) where ``mask`` is true."""
    return pc.if_else(pa.array(mask), fill, values)
