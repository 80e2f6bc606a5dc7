"""Layouts that real logs of probe M misread, each with the lines that showed it.

- MariaDB pads an hour below 10 with a blank (mcruzv10/logs ``mysqld.log``, MariaDB 10.4):
  the 2,505 records of the night hours had been read as continuation lines of the record
  before them, the WARN count 3,175 of 5,638 and "exact"; its docker image's entrypoint
  writes ``[Warn]``.
- Synapse's ``ts - name - lineno - LEVEL - request - msg`` (alirad18/matrix
  ``homeserver.log``): the component had been ``root - 257``, one logger split over its
  lines, ``twisted`` ranked first (54) where ``synapse.app.homeserver`` has 113.
"""

from __future__ import annotations

from datetime import datetime

import polars as pl

from logagent.formats.app import parse_app
from logagent.formats.applogs import PYTHON
from logagent.formats.detect import detect_all
from logagent.formats.records import fold_records
from logagent.formats.serverlogs import MYSQL

MARIADB = [
    "2022-11-18 19:35:58 1404 [Warning] Aborted connection 1404 to db: 'pantheon' user: 'root' "
    "host: 'localhost' (Got an error reading communication packets)",
    "2022-11-19  1:00:34 14 [Warning] Aborted connection 14 to db: 'pantheon' user: 'root' "
    "host: 'localhost' (Got timeout reading communication packets)",
    "2022-11-19  1:01:32 8516 [Warning] Aborted connection 8516 to db: 'pantheon'",
    "2025-09-15  7:55:48 0 [Note] Starting MariaDB 12.0.2-MariaDB-ubu2404 source revision",
    "2025-09-15 07:55:48+00:00 [Warn] [Entrypoint]: /sys/fs/cgroup/memory.pressure not writable",
    "2025-09-15  7:57:31 3 [Warning] Access denied for user 'root'@'localhost' (using password: NO)",
]


def test_mariadb_one_digit_hours_start_records() -> None:
    folded = fold_records(pl.Series("line", MARIADB), MYSQL)
    assert folded.height == len(MARIADB)  # each line a record of its own
    got = parse_app(MYSQL, pl.Series("line", MARIADB))
    assert got["level"].to_list() == ["WARN", "WARN", "WARN", "INFO", "WARN", "WARN"]
    assert got["time"][1].replace(tzinfo=None) == datetime(2022, 11, 19, 1, 0, 34)
    assert got["time"][5].replace(tzinfo=None) == datetime(2025, 9, 15, 7, 57, 31)
    assert got["component"][4] == "Entrypoint"
    assert detect_all(MARIADB * 3).best == "mysql"


def test_python_line_numbers_are_not_part_of_the_logger() -> None:
    lines = [
        "2020-07-08 18:50:13,571 - root - 257 - WARNING - None - ***** STARTING SERVER *****",
        "2020-07-08 18:50:13,891 - synapse.app.homeserver - 245 - WARNING -  - Starting daemon.",
        "2020-07-08 18:50:14,001 - twisted - 192 - ERROR - - Unhandled error in Deferred:",
        "2020-07-08 18:50:15,002 - app.worker - ERROR - no line number here",
    ]
    got = parse_app(PYTHON, pl.Series("line", lines))
    assert got["component"].to_list() == ["root", "synapse.app.homeserver", "twisted", "app.worker"]
    assert got["level"].to_list() == ["WARN", "WARN", "ERROR", "ERROR"]
