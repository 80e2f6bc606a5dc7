"""Layouts that real logs of probe M misread, each with the lines that showed it.

- MariaDB pads an hour below 10 with a blank (mcruzv10/logs ``mysqld.log``, MariaDB 10.4):
  the 2,505 records of the night hours had been read as continuation lines of the record
  before them, the WARN count 3,175 of 5,638 and "exact"; its docker image's entrypoint
  writes ``[Warn]``.
- Synapse's ``ts - name - lineno - LEVEL - request - msg`` (alirad18/matrix
  ``homeserver.log``): the component had been ``root - 257``, one logger split over its
  lines, ``twisted`` ranked first (54) where ``synapse.app.homeserver`` has 113.
- IntelliJ's ``idea.log`` (ryan-williams/intellij-logs, Hacklesss/logs): refused as no known
  format, its 279 ERROR records unseen (82 % of its lines are stack traces).
- Minecraft's ``latest.log`` (three clients, vanilla, Forge, Fabric): refused.
- Rails 5's FATAL exceptions (apiexchanger, probe B2): 62 counted as 248 FATAL records, one
  per piece, 182 under "-". (Rails 4's, juniorsk8/logfiles: 80 under "-", the class on the
  line after the empty FATAL one: left so, the record keeps its stamp.)
"""

from __future__ import annotations

from datetime import datetime

import polars as pl

from logagent.formats.app import parse_app
from logagent.formats.applogs import PYTHON, RUBY
from logagent.formats.desktoplogs import INTELLIJ, MINECRAFT
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
    "2025-09-15  7:57:31 3 [Warning] Access denied for user 'root'@'localhost' (password: NO)",
]


def test_mariadb_one_digit_hours_start_records() -> None:
    folded = fold_records(pl.Series("line", MARIADB), MYSQL)
    assert folded.height == len(MARIADB)  # each line a record of its own
    got = parse_app(MYSQL, pl.Series("line", MARIADB))
    assert got["level"].to_list() == ["WARN", "WARN", "WARN", "INFO", "WARN", "WARN"]
    assert got["time"][1].replace(tzinfo=None) == datetime(2022, 11, 19, 1, 0, 34)
    assert got["time"][5].replace(tzinfo=None) == datetime(2025, 9, 15, 7, 57, 31)
    assert got["component"][4] == "Entrypoint"
    assert got["time"].null_count() == 0  # the entrypoint's "+00:00" stamp too (a review)
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


IDEA = [
    "2018-08-07 17:29:39,915 [238996401]  ERROR - aemon.impl.PassExecutorService - IntelliJ "
    "IDEA 2018.2.1  Build #IU-182.3911.13",
    "java.lang.Throwable: Assertion failed",
    "\tat com.intellij.openapi.diagnostic.Logger.assertTrue(Logger.java:174)",
    "\tat com.intellij.psi.impl.source.SubstrateRef$2.getContainingFile(SubstrateRef.java:101)",
    "\tat java.lang.Thread.run(Thread.java:745)",
    "2017-11-14 16:59:03,668 [se-915-b01]  ERROR - e.actions.ShowSettingsUtilImpl - null ",
    "2017-11-14 15:39:10,466 [      1]   INFO -        #com.intellij.idea.Main - -------------",
    "2018-08-07 17:30:01,002 [238998000]   WARN - #git4idea.util.GitFileUtils - cannot add",
    "\tat git4idea.util.GitFileUtils.addPaths(GitFileUtils.java:120)",
    "\tat java.lang.Thread.run(Thread.java:745)",
]


def test_intellij_records_and_their_traces() -> None:
    found = detect_all(IDEA * 3)
    assert found.best == "intellij" and found.confidence == 1.0
    folded = fold_records(pl.Series("line", IDEA), INTELLIJ)
    assert folded["lines"].to_list() == [5, 1, 1, 3]
    assert folded["level"].to_list() == ["ERROR", "ERROR", "INFO", "WARN"]
    assert folded["component"].to_list() == [
        "aemon.impl.PassExecutorService",
        "e.actions.ShowSettingsUtilImpl",
        "#com.intellij.idea.Main",
        "#git4idea.util.GitFileUtils",
    ]
    assert folded["time"][0].replace(tzinfo=None) == datetime(2018, 8, 7, 17, 29, 39, 915000)


MC = [
    "[09:59:37] [main/INFO]: Loading for game Minecraft 1.15.2",
    "[09:59:38] [main/WARN]: Warnings were found! ",
    " - Conflicting versions found for fabric-api-base: used 0.1.2+28f8190f42",
    "[10:58:15] [main/INFO] [FML]: Forge Mod Loader version 14.23.5.2779 for Minecraft 1.12.2",
    "[10:58:20] [Client thread/ERROR] [net.minecraft.client.audio.SoundManager]: Error in class "
    "'LibraryLWJGLOpenAL'",
    "[11:02:03] [Server thread/FATAL]: Encountered an unexpected exception",
]


def test_minecraft_levels_and_loggers() -> None:
    found = detect_all(MC * 4)
    assert found.best == "minecraft"
    folded = fold_records(pl.Series("line", MC), MINECRAFT)
    assert folded["level"].to_list() == ["INFO", "WARN", "INFO", "ERROR", "FATAL"]
    assert folded["component"].to_list() == [
        "Loading for game Minecraft",
        "Warnings were",  # the error kind: up to four words, none ending in "!"
        "FML",
        "net.minecraft.client.audio.SoundManager",
        "Encountered an unexpected exception",
    ]
    assert folded["time"].null_count() == 5  # a time of day without a date is no time


_T4 = "F, [2015-06-08T08:04:55.714508 #5419] FATAL -- : "
_T5 = "F, [2018-04-08T13:57:35.591992 #15888] FATAL -- : [fbfe6a02-4c88] "
_F = "F, [2024-01-01T10:00:02.000001 #100] FATAL -- "
_INFO = "I, [2015-06-08T08:04:55.701000 #5419]  INFO -- : "
RAILS = [
    _INFO + "Processing by ItemsController#search as HTML",
    _INFO + '  Parameters: {"q"=>"x"}',
    _INFO + "  Rendered items/search.html.erb within layouts/application (1.2ms)",
    _INFO + "Completed 200 OK in 20ms (Views: 15.1ms | ActiveRecord: 1.2ms)",
    _INFO + 'Started GET "/dnscfg.cgi" for 1.2.3.4',
    _T4,
    'ActionController::RoutingError (No route matches [GET] "/dnscfg.cgi"):',
    "  actionpack (4.2.0) lib/action_dispatch/middleware/debug_exceptions.rb:21:in `call'",
    "",
    _T5 + "  ",
    _T5 + "ActiveRecord::StatementInvalid (PG::UndefinedTable: relation does not exist",
    "LINE 8:                WHERE a.attrelid = '\"currencies\"'::regclass",
    "):",
    _T5 + "  ",
    _T5 + "app/controllers/api/currencies_controller.rb:8:in `currency_reserves'",
    _T5 + "actionpack (5.1.4) lib/action_controller/metal/basic_implicit_render.rb:4:in `x'",
    "E, [2018-04-08T13:58:00.000000 #15888] ERROR -- : [aa11] Net::ReadTimeout",
    "F, [2018-04-08T13:59:00.000000 #15888] FATAL -- :   ",
    "F, [2018-04-08T13:59:00.000000 #15888] FATAL -- : /usr/lib/ruby/2.5.0/net/http.rb:1:in `x'",
    # a plain Ruby program's FATAL records, whatever their first character (a review)
    _F + ": database connection lost",
    _F + "MyApp: shutting down after error",
    _F + ": /etc/app.yml missing",
]


def test_rails_exceptions_count_once() -> None:
    """Rails 5's blank and backtrace pieces are records without a level, so its exception
    counts once, by its class line; Rails 4's empty FATAL line is the record (the class line
    after it folded, so it ranks under "-"); a plain FATAL message stays FATAL. Every
    record keeps its stamp."""
    assert detect_all(RAILS * 3).best == "ruby"
    folded = fold_records(pl.Series("line", RAILS), RUBY)
    assert folded["level"].to_list() == [
        *["INFO"] * 5,
        "FATAL",  # Rails 4's empty line, its class and frames folded
        None,
        "FATAL",  # Rails 5's class line
        *[None] * 3,
        "ERROR",
        None,
        None,
        *["FATAL"] * 3,
    ]
    got = dict(zip(folded["level"], folded["component"], strict=True))
    assert folded.filter(pl.col("level") == "FATAL")["component"].to_list() == [
        "-",
        "ActiveRecord::StatementInvalid",
        "database connection lost",
        "MyApp",
        "-",
    ]
    assert got["ERROR"] == "Net::ReadTimeout"
    assert folded["lines"].to_list()[5:8] == [4, 1, 3]
    assert folded["time"].null_count() == 0
