"""Masking of IP and e-mail addresses before text reaches an LLM."""

from __future__ import annotations

import pytest

from logagent.report.mask import mask


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ('203.0.113.7 - - "GET /a HTTP/1.1" 500', '<ip> - - "GET /a HTTP/1.1" 500'),
        ("from 2001:db8::1 to fe80::1ff:fe23:4567:890a", "from <ip> to <ip>"),
        ("::1 - -", "<ip> - -"),
        ("user bob.smith+x@mail.example.com failed", "user <email> failed"),
    ],
)
def test_addresses_are_masked(text: str, masked: str) -> None:
    """IPv4, IPv6 and e-mail addresses become placeholders."""
    assert mask(text) == masked


@pytest.mark.parametrize(
    "text",
    ["[28/Nov/2026:13:55:36 +0000]", "version 1.2.3.4.5", "/api/v1/pay/{id}", "took 0.84 s"],
)
def test_other_text_is_kept(text: str) -> None:
    """Times, versions, routes and numbers are not addresses."""
    assert mask(text) == text
