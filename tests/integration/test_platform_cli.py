"""New layouts through the CLI: the engine's level prefilter, record folding and component
ranking give the counts a plain reading of the lines gives (``php``, ``dotnet``), and a forward
proxy's 5xx are ranked by site and path (``squid``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.integration.test_json_layout_levels import cli, top
from tests.unit.test_access_layouts import SQUID_LINES
from tests.unit.test_platform_layouts import DOTNET_LINES, FPM_RELAYED, PHP7_TRACE


def answer(path: Path, *extra: str) -> dict[str, Any]:
    code, out = cli(path, *extra)
    assert code == 0
    return out


def test_dotnet_errors_by_category_with_their_messages_folded(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_text("\n".join(DOTNET_LINES * 7) + "\n")
    out = answer(log)
    assert out["status"] == "exact" and out["input"]["format"] == "dotnet"
    assert top(out) == {"Microsoft.AspNetCore.Server.Kestrel": 7, "MyApp.Startup": 7}


def test_php_fatals_relayed_or_raw_are_fatal_once(tmp_path: Path) -> None:
    """Each fatal counts once, under its script, however many trace lines follow it; php-fpm's
    own WARNING lines about children are no errors."""
    log = tmp_path / "php.log"
    log.write_text("\n".join(PHP7_TRACE * 3 + FPM_RELAYED * 4) + "\n")
    out = answer(log)
    assert out["input"]["format"] == "php"
    assert top(out) == {"/var/www/a.php": 7}
    warn = answer(log, "--level", "warn")
    assert top(warn) == {"/var/www/a.php": 10, "www": 4}


def test_squid_5xx_are_ranked_by_site(tmp_path: Path) -> None:
    other = (
        "1580740556.100     40 192.168.5.3 TCP_MISS/504 0 GET http://api.example.org/v1/items/42"
        "?x=1 - HIER_DIRECT/10.0.0.9 -"
    )
    log = tmp_path / "access.log"
    log.write_text("\n".join([*SQUID_LINES * 3, other, other]) + "\n")
    out = answer(log)
    assert out["input"]["format"] == "squid" and out["status"] == "exact"
    assert top(out) == {
        "/wiki.ipfire.org/": 3,  # 503
        "/garfield.com/comic/2015-03-14": 3,  # 502, through syslog
        "/api.example.org/v1/items/{id}": 2,
    }
    raw = top(answer(log, "--no-normalize"))
    assert raw["/api.example.org/v1/items/42"] == 2


#: Android Studio's Logcat window, saved (AvinSSSS's logcat.txt on GitHub, probe E; it had
#: been refused as an unknown format), with the window's own separator lines.
STUDIO_LOGCAT = [
    "--------- beginning of main",
    "2025-01-24 11:39:16.533  1249-1321  BufferQueueDebug        surfaceflinger"
    "                       E  [ActivityRecord{66312ee u0 br.com.ohmybread/.MainActivity}#1603]",
    "2025-01-24 11:39:17.505  2155-2159  nativeloader            br.com.ohmybread"
    "                     D  Load libjdwp.so using system ns (caller=<unknown>): ok",
    "2025-01-24 11:39:17.590  2155-2155  System.out              br.com.ohmybread"
    "                     I  Debug.suspendAllAndSentVmStart",
    "2025-01-24 11:39:18.002  2155-2155  AndroidRuntime          br.com.ohmybread"
    "                     E  FATAL EXCEPTION: main",
]


def test_android_studio_logcat_levels_by_tag_and_its_dates_need_no_year(tmp_path: Path) -> None:
    """Its stamps carry their year: no warning that a year was guessed (it had said "logcat
    stamps carry no year ... placed in 2025"), and the records are placed in that year."""
    log = tmp_path / "logcat.txt"
    log.write_text("\r\n".join(STUDIO_LOGCAT * 5) + "\r\n")
    out = answer(log, "--full")
    assert out["input"]["format"] == "logcat"
    assert top(out) == {"BufferQueueDebug": 5, "AndroidRuntime": 5}
    assert not [w for w in out["warnings"] if "no year" in w]
    status = answer(log, "-q", "status", "--full")
    assert {e["key"]: e["count"] for e in status["answer"]["top"]} == {
        "ERROR": 10,
        "DEBUG": 5,
        "INFO": 5,
    }
    window = answer(log, "-q", "status", "--since", "2025-01-24T11:39:17Z", "--until",
                    "2025-01-24T11:39:17.999Z")  # fmt: skip
    assert {e["key"]: e["count"] for e in window["answer"]["top"]} == {"DEBUG": 5, "INFO": 5}
