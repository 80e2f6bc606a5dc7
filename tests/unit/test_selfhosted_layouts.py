"""Gitea's and Vaultwarden's own logs (formats/selfhosted.py). The lines are real:
crowdsecurity/hub ``.tests/gitea-logs/gitea-logs.log`` and
``.tests/vaultwarden-logs/vaultwarden-logs.log`` @ b03cb59b2131ebfc5300f5f14828e29967efd1a5
(MIT); both logs had been refused as unknown layouts (a probe of real logs)."""

from __future__ import annotations

import polars as pl

from logagent.formats.app import parse_app
from logagent.formats.detect import detect_all
from logagent.formats.selfhosted import GITEA, VAULTWARDEN

GITEA_LINES = [
    "2022/03/01 12:57:58 ...ers/web/auth/auth.go:200:SignInPost() [I] Failed authentication "
    "attempt for test from 1.1.1.1:39522: user does not exist [uid: 0, name: test, keyid: 0]",
    "2023/05/12 12:17:34 ...ers/web/auth/auth.go:206:SignInPost() [I] [645e123e] Failed "
    "authentication attempt for test from [1234::5678]:0: user does not exist",
    "2023/05/12 12:17:35.123456 ...dules/setting/log.go:80:func1() [E] Unable to open log",
    "2023/05/12 12:17:36 [W] Unable to find configuration file",
]
VAULTWARDEN_LINES = [
    "[2022-02-03 16:10:11.219][vaultwarden::api::identity][ERROR] Username or password is "
    "incorrect. Try again. IP: ::1. Username: test@example.com.",
    "[2022-02-03 16:10:15.993][vaultwarden::api::admin][ERROR] Invalid admin token. IP: ::1",
    "[2022-02-03 16:10:16.001][rocket::launch][INFO] Rocket has launched",
]


def test_gitea_levels_files_and_times() -> None:
    got = parse_app(GITEA, pl.Series("line", [*GITEA_LINES, "not a record"]))
    assert got.select("level", "component").rows() == [
        ("INFO", "auth.go"),
        ("INFO", "auth.go"),
        ("ERROR", "log.go"),
        ("WARN", "Unable to find configuration"),  # no file named: the error kind
        (None, None),
    ]
    assert got["message"][1].startswith("Failed authentication")  # the request id left out
    assert str(got["time"][2]) == "2023-05-12 12:17:35.123456+00:00"


def test_vaultwarden_levels_modules_and_times() -> None:
    got = parse_app(VAULTWARDEN, pl.Series("line", VAULTWARDEN_LINES))
    assert got.select("level", "component").rows() == [
        ("ERROR", "vaultwarden::api::identity"),
        ("ERROR", "vaultwarden::api::admin"),
        ("INFO", "rocket::launch"),
    ]
    assert str(got["time"][0]) == "2022-02-03 16:10:11.219000+00:00"


def test_both_are_detected() -> None:
    assert detect_all(GITEA_LINES * 5).best == "gitea"
    assert detect_all(VAULTWARDEN_LINES * 5).best == "vaultwarden"
