"""Masking of personal data in text sent to an LLM (PURE).

IP addresses (v4 and v6) and e-mail addresses become ``<ip>`` and
``<email>``; the rest of the text is kept, so an example line still shows
its shape.
"""

from __future__ import annotations

import re

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])")
# Eight hextets, or fewer around one "::"; a time such as 13:55:36 has no letters or "::".
_IPV6 = re.compile(
    r"(?<![\w:])(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}(?![\w:])"
    r"|(?<![\w:])(?:[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4})*)?::"
    r"(?:[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4})*)?(?![\w:])"
)


def mask(text: str) -> str:
    """``text`` with IP and e-mail addresses replaced by placeholders."""
    text = _EMAIL.sub("<email>", text)
    text = _IPV6.sub("<ip>", text)
    return _IPV4.sub("<ip>", text)
