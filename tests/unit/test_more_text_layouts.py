"""loguru, etcd's capnslog, dmesg, Xorg, Passenger, Squid's cache.log and two more Python
layouts (``formats.textlogs``, ``applogs.PYTHON``): each was refused as no known format in
probes S and T, or ranked by message heads. The lines are written in the shape of those real
logs (their text is ours)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from click.testing import CliRunner

from logagent.cli import main
from logagent.formats.app import parse_app
from logagent.formats.applogs import PYTHON
from logagent.formats.daemonlogs import (
    FAST_ALERTS,
    HEALTHAPP,
    HPC,
    MOSQUITTO,
    MSSQL_ERRORLOG,
    OPENVPN,
    WINDOWS_UPDATE,
    charon,
    mongodb_legacy,
    proxifier,
)
from logagent.formats.detect import detect_all
from logagent.formats.textlogs import (
    CAPNSLOG,
    DMESG,
    LOGURU,
    NPM_DEBUG,
    PASSENGER,
    SQUID_CACHE,
    XORG,
)

LOGURU_LINES = [
    "2023-08-19 15:19:23 | INFO     | core.processor:parse_env:10 - Initializing environment.",
    "2023-08-21 22:59:38.101 | ERROR    | core.chat:chat:65 - No response from the server: 'x'",
    "Traceback (most recent call last):",
    "",
    '> File "/srv/app/main.py", line 55, in <module>',
    "    asyncio.run(cli())",
    "    │       │   └ <function cli at 0x1043163e0>",
    "    └ <module 'asyncio'>",
    "KeyError: 'function_call'",
    "2023-08-21 22:59:39 | WARNING  | __main__:<module>:47 - retrying",
    "2023-08-21 22:59:40 | SUCCESS  | core.chat:chat:70 - answered",
    "2023-08-21 22:59:41 | CRITICAL | core.db:connect:9 - database gone",
]


def _run(log: Path, *args: str) -> dict:  # type: ignore[type-arg]
    out = CliRunner().invoke(main, ["analyze", str(log), "--json", "--llm", "off", *args])
    return json.loads(out.output)


def _levels(got: dict) -> dict[str, int]:  # type: ignore[type-arg]
    return {t["key"]: t["count"] for t in got["answer"]["top"]}


def test_loguru_folds_its_diagnose_traceback(tmp_path: Path) -> None:
    got = parse_app(LOGURU, pl.Series("line", LOGURU_LINES))
    starts = got.filter(pl.col("component").is_not_null())
    assert starts["level"].to_list() == ["INFO", "ERROR", "WARN", "INFO", "FATAL"]
    assert starts["component"].to_list() == [
        "core.processor:parse_env",
        "core.chat:chat",
        "__main__:<module>",
        "core.chat:chat",
        "core.db:connect",
    ]
    assert detect_all(LOGURU_LINES * 3).best == "loguru"
    log = tmp_path / "app.log"
    log.write_text("\n".join(LOGURU_LINES * 3) + "\n")
    run = _run(log, "-q", "status", "--full")
    assert run["input"]["format"] == "loguru" and run["status"] == "exact"
    assert _levels(run) == {"INFO": 6, "ERROR": 3, "WARN": 3, "FATAL": 3}
    assert run["progress"]["malformed_lines"] == 0
    assert not any("look like no stack trace" in w for w in run["warnings"])


ETCD = [
    "2019-10-02 02:20:17.576248 I | pkg/flags: recognized and used environment variable X=1",
    "2019-10-02 02:20:18.000001 W | rafthttp: health check for peer 8e9e05 could not connect",
    "2019-10-02 02:20:19.123456 E | rafthttp: failed to dial 8e9e05c52164694d on stream",
    "2019-10-02 02:20:20.123456 N | etcdserver/membership: set the initial cluster version",
    "2019-10-02 02:20:21.123456 C | etcdmain: listen tcp 0.0.0.0:2379: bind: address in use",
    "WARNING: 2019/10/02 02:33:42 Failed to dial 0.0.0.0:2379: connection error",
]


def test_capnslog() -> None:
    got = parse_app(CAPNSLOG, pl.Series("line", ETCD))
    assert got["level"].to_list() == ["INFO", "WARN", "ERROR", "INFO", "FATAL", "WARN"]
    assert got["component"].to_list()[:5] == [
        "pkg/flags",
        "rafthttp",
        "rafthttp",
        "etcdserver/membership",
        "etcdmain",
    ]
    assert got["time"].is_null().sum() == 0
    assert detect_all(ETCD * 3).best == "capnslog"


DMESG_LINES = [
    "[    0.000000] Linux version 5.4.0-1051 (buildd@lcy02) (gcc version 9.4.0) #57-Ubuntu SMP",
    "[    0.000000] KERNEL supported cpus:",
    "[    0.000000]   Intel GenuineIntel",
    "[    2.881388] RAS: Correctable Errors collector initialized.",
    "[    7.159329] EXT4-fs (sda6): re-mounted. Opts: errors=remount-ro",
    "[  812.406130] ata1.00: failed command: READ FPDMA QUEUED",
    "[ 1012.406130] Kernel panic - not syncing: Fatal exception",
    "               If you want to keep using the local clock, then add:",
]
XORG_LINES = [
    "[     9.830] ",
    "X.Org X Server 1.19.6",
    "Markers: (--) probed, (**) from config file, (==) default setting,",
    "\t(WW) warning, (EE) error, (NI) not implemented, (??) unknown.",
    '[     9.833] (WW) The directory "/usr/share/fonts/X11/cyrillic" does not exist.',
    "[     9.840] (II) Loading /usr/lib/xorg/modules/libglamoregl.so",
    "[     9.841] \tModule class: X.Org Video Driver",
    "[    26.427] (EE) NVIDIA(0): Failed to initialize the NVIDIA kernel module",
    "[    26.500] (==) Using config directory: /etc/X11/xorg.conf.d",
]


def test_dmesg_and_xorg_take_each_others_lines_for_none_of_their_own(tmp_path: Path) -> None:
    """Both stamp the time since boot in brackets: a dmesg log is no Xorg log (it holds no
    marker) and an Xorg log no dmesg one (``ruled_out_by`` its markers)."""
    found = detect_all(DMESG_LINES * 3)
    assert found.best == "dmesg" and not found.ambiguous
    assert dict(found.scores)["xorg"] == 0.0
    found = detect_all(XORG_LINES * 3)
    assert found.best == "xorg" and dict(found.scores)["dmesg"] == 0.0
    got = parse_app(DMESG, pl.Series("line", DMESG_LINES)).drop_nulls("component")
    # routine boot lines are no errors (levels.ROUTINE); a failed command and a panic are
    assert got["level"].to_list() == ["INFO", "INFO", "INFO", "INFO", "INFO", "ERROR", "FATAL"]
    assert got["time"].is_null().all()  # seconds since boot: no time of day
    got = parse_app(XORG, pl.Series("line", XORG_LINES)).drop_nulls("component")
    assert got["level"].to_list() == ["WARN", "INFO", "ERROR", "INFO"]
    assert got["component"][2] == "NVIDIA(0)"
    log = tmp_path / "Xorg.0.log"
    log.write_text("\n".join(XORG_LINES * 2) + "\n")
    run = _run(log, "-q", "status", "--full")
    assert (run["input"]["format"], run["status"]) == ("xorg", "exact")
    assert _levels(run) == {"INFO": 4, "WARN": 2, "ERROR": 2}
    assert run["progress"]["malformed_lines"] == 0


def test_dmesg_x_and_t() -> None:
    lines = [
        "kern  :err   : [ 2406.164039] nvme 0000:01:00.0: controller is down; will reset",
        "kern  :info  : [ 2406.164040] nvme 0000:01:00.0: failed to set APST feature (-19)",
        "[Sat May  8 00:49:10 2021] usb 1-1: new high-speed USB device number 2",
    ]
    got = parse_app(DMESG, pl.Series("line", lines))
    assert got["level"].to_list() == ["ERROR", "INFO", "INFO"]  # -x's level wins over words
    assert got["time"].is_null().to_list() == [True, True, False]
    assert str(got["time"][2]) == "2021-05-08 00:49:10+00:00"


def test_passenger_and_squid_cache() -> None:
    passenger = [
        "[ N 2020-08-20 07:15:48.4685 3391/T8 age/Cor/CoreMain.cpp:671 ]: Signal received.",
        "[ E 2020-08-20 07:15:49.0001 3391/Tc age/Spa/SmartSpawner.h:1187 ]: Cannot spawn app",
        "App 4107 output: Error: the gem 'pg' is missing",
        "[ W 2020-08-20 07:15:50.1 3391/T1 Ser/Server.h:902 ]: [ServerThr.3] slow client",
    ]
    got = parse_app(PASSENGER, pl.Series("line", passenger)).drop_nulls("component")
    assert got["level"].to_list() == ["INFO", "ERROR", "WARN"]
    assert got["component"][1] == "age/Spa/SmartSpawner.h"
    assert detect_all(passenger * 3).best == "passenger"
    squid = [
        "2025/08/12 06:01:16| Processing Configuration File: /etc/squid/squid.conf (depth 0)",
        "2025/08/12 06:01:16 kid1| ERROR: No forward-proxy ports configured.",
        "2025/08/12 06:01:17 kid1| WARNING: cache_mem is larger than total disk cache space!",
        "2025/08/12 06:01:18| FATAL: Bungled squid.conf line 12: http_port",
        "2025/08/12 13:40:22 sslcrtd_program| FATAL: Cannot generate certificates",
        "    listening port: 3128",
    ]
    got = parse_app(SQUID_CACHE, pl.Series("line", squid)).drop_nulls("component")
    assert got["level"].to_list() == ["INFO", "ERROR", "WARN", "FATAL", "FATAL"]
    assert detect_all(squid * 3).best == "squid_cache"


def test_python_with_the_level_first_or_no_time() -> None:
    lines = [
        "[DEBUG] 2024-11-26 14:49:02 [django.utils.autoreload:378] File x.py first seen",
        "[ERROR] 2024-11-26 14:49:03 [ops.api.views:91] upstream gone",
        "INFO 2020-06-16 16:07:42,873 [discoverer.py discover:223]: Got: http://x.org/a depth:8",
        "root - ERROR - main crashed. Error while reading",
        "app.sync - WARNING - cannot read json data",
    ]
    got = parse_app(PYTHON, pl.Series("line", lines))
    assert got["level"].to_list() == ["DEBUG", "ERROR", "INFO", "ERROR", "WARN"]
    assert got["component"].to_list() == [
        "django.utils.autoreload",
        "ops.api.views",
        "discoverer.py",
        "root",
        "app.sync",
    ]
    assert got["time"].is_null().to_list() == [False, False, False, True, True]
    assert detect_all(lines[:3] * 3).best == "python"
    assert detect_all(lines[3:] * 3).best == "python"
    # "[%(name)s]" alone, dotted or not (a review: "[auth]" had been refused)
    named = ["INFO 2024-03-10 08:00:00,966 [db.pool] ok", "ERROR 2024-03-10 08:00:01,000 [auth] x"]
    got = parse_app(PYTHON, pl.Series("line", named))
    assert got["component"].to_list() == ["db.pool", "auth"]
    assert got["level"].to_list() == ["INFO", "ERROR"]
    # a review: Java's level-first layouts write a thread in the bracket and a class after
    # it; half read as python (the padded "INFO " lines folded), they are no python's
    java = [
        "INFO  2024-03-05 10:00:00,244 [main] com.acme.Cache: retrying operation after timeout",
        "ERROR 2024-03-05 10:00:09,100 [exec-1] com.acme.web.Api - failed to load user 42",
    ]
    assert dict(detect_all(java * 5).scores)["python"] == 0.0


def test_dmesg_is_no_other_uptime_or_ctime_log() -> None:
    """A review: PHP's built-in server and journalctl -o short-monotonic were read as dmesg
    (PHP's 86 requests that got a 500: "no ERROR+ record"); the kernel's own "INFO: task"
    and "WARNING: CPU:" lines are dmesg's (a second review: one of them had refused a log)."""
    for lines in (
        ["[Tue Mar  5 10:00:00 2024] 127.0.0.1:44516 [500]: GET /api/x"],
        ["[    1.370000] web01 nginx[77]: upstream timed out", "[    1.0] web01 kernel: x"],
    ):
        assert dict(detect_all(lines * 5).scores)["dmesg"] == 0.0
    kernel = [
        "[  120.5] INFO: task jbd2/sda1-8:245 blocked for more than 120 seconds.",
        "[  121.0] WARNING: CPU: 2 PID: 1234 at drivers/gpu/drm/i915/intel_pm.c:3721",
        "[  122.0] usb 1-1: new high-speed USB device number 2 using xhci_hcd",
    ]
    assert detect_all(kernel * 5).best == "dmesg"


def test_an_apache_error_log_is_no_dmesg_t() -> None:
    """dmesg -T's stamp is Apache 2.2's (a review of probe S's logs: an Apache error log was
    read as dmesg, the same counts under the wrong name)."""
    lines = [
        "[Fri Dec 16 01:46:23 2005] [error] [client 1.2.3.4] Directory index forbidden by rule",
        "[Fri Dec 16 01:46:24 2005] [notice] Apache/2.2.3 configured -- resuming normal operations",
    ]
    found = detect_all(lines * 5)
    assert found.best == "apache_error" and dict(found.scores)["dmesg"] == 0.0


def test_npm_debug_log() -> None:
    """npm-debug.log (and ~/.npm/_logs/*-debug-0.log): "N level msg" (probe T: refused)."""
    lines = [
        "0 info it worked if it ends with ok",
        "1 verbose cli [ '/usr/local/bin/node',",
        "1 verbose cli   '/usr/local/bin/npm',",
        "5 silly publish { name: 'zerorpc' }",
        "6 http request PUT https://registry.npmjs.org/zerorpc",
        "12 timing command:install Completed in 2ms",
        "21 error code E403",
        "22 warn deprecated request@2.88.2",
    ]
    got = parse_app(NPM_DEBUG, pl.Series("line", lines))
    assert got["level"].to_list() == [
        "INFO", "DEBUG", "DEBUG", "TRACE", "INFO", "DEBUG", "ERROR", "WARN"
    ]  # fmt: skip
    assert detect_all(lines * 3).best == "npm_debug"


def test_fast_log_alerts() -> None:
    """Suricata's (and Snort's) fast.log: the signature is the component, the priority the
    level (probe U: generic took "ET INFO" in a signature as the level of 233 alerts and
    left 93 others malformed, "exact")."""
    lines = [
        "03/02/2025-16:05:10.697055  [**] [1:1000001:1] ICMP Traffic Detected [**] "
        "[Classification: (null)] [Priority: 3] {IPv6-ICMP} fe80::1:135 -> fe80::2:0",
        "03/02/2025-16:06:00.100000  [**] [1:2013504:6] ET INFO GNU/Linux APT User-Agent "
        "Outbound [**] [Classification: Not Suspicious Traffic] [Priority: 3] {TCP} "
        "10.0.2.15:40000 -> 91.189.91.39:80",
        "03/02/2025-16:07:00.000001  [**] [1:2001219:20] ET SCAN Potential SSH Scan [**] "
        "[Classification: Attempted Information Leak] [Priority: 2] {TCP} 10.0.0.5:4022 -> "
        "10.0.0.1:22",
        "03/24-13:55:05.566290  [**] [1:1000002:1] Possible SSH Brute Force [**] [Priority: 1] "
        "{TCP} 10.0.0.9:5555 -> 10.0.0.1:22",
    ]
    got = parse_app(FAST_ALERTS, pl.Series("line", lines))
    assert got["level"].to_list() == ["INFO", "INFO", "WARN", "ERROR"]
    assert got["component"].to_list() == [
        "ICMP Traffic Detected",
        "ET INFO GNU/Linux APT User-Agent Outbound",
        "ET SCAN Potential SSH Scan",
        "Possible SSH Brute Force",
    ]
    assert got["time"].is_null().to_list() == [False, False, False, True]  # Snort's: no year
    assert detect_all(lines * 3).best == "fast_alerts"


def test_openvpn_charon_mosquitto_and_windows_update() -> None:
    """Four daemons' logs probe U found refused: their stamps, components and levels (read
    from their tags and words: none writes a level of its own)."""
    vpn = [
        "Wed Dec 27 01:48:22 2017 us=445895 Current Parameter Settings:",
        "Wed Dec 27 01:48:22 2017 us=446176   config = 'server-orange.conf'",
        "RWRWTue Aug  1 23:17:21 2017 us=537294 TLS Error: TLS handshake failed",
        "Tue Aug  1 23:17:22 2017 WARNING: --ns-cert-type is DEPRECATED",
    ]
    got = parse_app(OPENVPN, pl.Series("line", vpn))
    assert got["level"].to_list() == ["INFO", "INFO", "ERROR", "WARN"]
    assert str(got["time"][2]) == "2017-08-01 23:17:21+00:00"
    assert detect_all(vpn * 3).best == "openvpn"
    ipsec = [
        "17 Aug 04:14:35 02[JOB] watched FD 18 ready to read",
        "17 Aug 04:14:36 11[IKE] received AUTHENTICATION_FAILED notify error",
        "Aug 17 04:14:37 05[CFG] <conn1|3> loaded certificate",
    ]
    got = parse_app(charon(2020), pl.Series("line", ipsec))
    assert got["component"].to_list() == ["JOB", "IKE", "CFG"]
    assert got["level"].to_list() == ["INFO", "ERROR", "INFO"]
    assert str(got["time"][0]) == "2020-08-17 04:14:35+00:00"
    assert detect_all(ipsec * 3, year=2020).best == "charon"
    mqtt = [
        "1640062719: mosquitto version 2.0.14 starting",
        "1640062720: Error: Address already in use",
        "2023-08-02T17:42:33: Warning: Mosquitto should not be run as root/administrator.",
    ]
    got = parse_app(MOSQUITTO, pl.Series("line", mqtt))
    assert got["level"].to_list() == ["INFO", "ERROR", "WARN"]
    assert str(got["time"][0]) == "2021-12-21 04:58:39+00:00"
    assert detect_all(mqtt * 3).best == "mosquitto"
    wu = [
        "2024-04-11 12:48:04.6269606 1980  8444  DownloadManager PurgeContentForPatchUpdate",
        "2020/11/19 15:25:46.9997442 3304  9020  Agent           * END * Finding updates, "
        "Exit code = 0x00000000",
        "2024-04-11 12:48:05.0000001 1980  8444  Agent           *FAILED* [8024000E] init",
        "2012-03-20\t10:36:32:145\t 988\tf10\tAU\t###########  AU: Initializing Automatic "
        "Updates  ###########",
        "2024-04-11 12:48:06.1000000 1980  8444  Handler  Download call complete (succeeded = "
        "1, succeeded with errors = 0, failed = 0)",
    ]
    got = parse_app(WINDOWS_UPDATE, pl.Series("line", wu))
    assert got["component"].to_list() == ["DownloadManager", "Agent", "Agent", "AU", "Handler"]
    assert got["level"].to_list() == ["INFO", "INFO", "ERROR", "INFO", "INFO"]
    assert got["time"].is_null().sum() == 0
    assert detect_all(wu * 3).best == "windows_update"


def test_mongodb_2_4_and_2_6() -> None:
    """MongoDB 2.x writes no severity and its thread where 3.0+ writes S COMPONENT (probe U:
    mtools' 2.4 and 2.6 logs refused)."""
    lines = [
        "Tue May 20 19:07:39.959 [mongosMain] MongoS version 2.4.7 starting: pid=36561",
        "Tue May 20 19:07:40.000 [conn12] warning: config servers not in sync",
        "2014-04-09T23:16:20.437-0400 [initandlisten] MongoDB starting : pid=4037 port=27019",
        "2014-04-09T23:16:21.000-0400 [conn7] assertion 13 not authorized on admin, error",
    ]
    got = parse_app(mongodb_legacy(2014), pl.Series("line", lines))
    assert got["component"].to_list() == ["mongosMain", "conn", "initandlisten", "conn"]
    assert got["level"].to_list() == ["INFO", "WARN", "INFO", "ERROR"]
    assert [str(t) for t in got["time"]][1:3] == [
        "2014-05-20 19:07:40+00:00",
        "2014-04-10 03:16:20.437000+00:00",
    ]
    assert detect_all(lines * 3, year=2014).best == "mongodb_legacy"


def test_loghub_healthapp_proxifier_and_hpc() -> None:
    """Three loghub datasets no layout read (HealthApp, Proxifier: refused; HPC: its lines
    malformed under generic, one "ERROR" word its level)."""
    health = [
        "20171223-22:15:29:606|Step_LSC|30002312|onStandStepChanged 3579",
        "20171223-22:15:29:633|Step_StandReportReceiver|30002312|onReceive action: SCREEN_ON",
    ]
    got = parse_app(HEALTHAPP, pl.Series("line", health))
    assert got["component"].to_list() == ["Step_LSC", "Step_StandReportReceiver"]
    assert str(got["time"][0]) == "2017-12-23 22:15:29.606000+00:00"
    assert detect_all(health * 5).best == "healthapp"
    proxy = [
        "[07.26 13:59:44] chrome.exe *64 - www.google.com.hk:443 open through proxy p.org:5070",
        "[10.30 16:49:07] Skype.exe - 86.99.222.235:443 error : Could not connect through proxy",
    ]
    got = parse_app(proxifier(2017), pl.Series("line", proxy))
    assert got["component"].to_list() == ["chrome.exe", "Skype.exe"]
    assert got["level"].to_list() == ["INFO", "ERROR"]
    assert detect_all(proxy * 5, year=2017).best == "proxifier"
    hpc = [
        "134681 node-246 unix.hw state_change.unavailable 1077804742 1 Component State Change",
        "2566692 1897 boot_cmd success 1073991950 1 Command has completed successfully",
        "51338 node-3 node psu 1106496000 1 psu failure\\ ambient=28",
    ]
    got = parse_app(HPC, pl.Series("line", hpc))
    assert got["component"].to_list() == ["unix.hw", "boot_cmd", "node"]
    assert got["level"].to_list() == ["INFO", "INFO", "ERROR"]
    assert str(got["time"][0]) == "2004-02-26 14:12:22+00:00"
    assert detect_all(hpc * 5).best == "hpc"


def test_sql_server_errorlog() -> None:
    """SQL Server's ERRORLOG: the line "Error: N, Severity: S" is the error (its message is
    the next line's, no level of its own: counted once); the banner's tabbed lines continue
    the first record (probe U: with --format generic 250 of 273 records were malformed)."""
    lines = [
        "2025-06-01 09:27:56.85 Server      Microsoft SQL Server 2022 (RTM) - 16.0.1000.6 (X64) ",
        "\tOct  8 2022 05:58:25 ",
        "2025-06-01 09:32:40.25 Backup      Error: 3041, Severity: 16, State: 1.",
        "2025-06-01 09:32:40.25 Backup      BACKUP failed to complete the command BACKUP DATABASE",
        "2025-06-01 09:33:45.70 spid85      Error: 823, Severity: 24, State: 2.",
        "2025-06-01 09:33:46.00 spid12s     Starting up database 'msdb'.",
    ]
    got = parse_app(MSSQL_ERRORLOG, pl.Series("line", lines)).drop_nulls("component")
    assert got["level"].to_list() == [None, "ERROR", None, "FATAL", None]
    assert got["component"].to_list() == ["Server", "Backup", "Backup", "spid", "spid"]
    assert detect_all(lines * 3).best == "mssql_errorlog"


def test_the_daemons_layouts_leave_other_logs_alone() -> None:
    """A review: each new layout had read logs of other shapes, their levels lost or guessed
    from words (every one had been read right by generic or log4j, or refused)."""
    levelled = {
        "mongodb_legacy": [  # hclog's "[INFO]" and logback's "[thread] LEVEL logger"
            "2025-04-27T21:05:38.575+1000 [INFO]  core: security barrier not initialized",
            "2024-03-10T08:00:00.481+0100 [main] INFO db.pool - user login ok",
        ],
        "mssql_errorlog": ["2024-03-10 08:00:00.32 INFO [cache] job finished"],
        "windows_update": [
            "2024-03-10 08:00:00.323   1000   2000 I Zygote: request handled in 12 ms",
            "2024/02/16 06:07:20.791  2136  3728 S0!! ProcessExecutor::Execute(): not found",
        ],
        "openvpn": [
            "Sun Mar 10 08:00:00 2024 ERROR http.server: failed to open file",
            'Mon Feb 21 17:44:19 2011 [pid 3] CONNECT: Client "127.0.0.1"',
        ],
        "mosquitto": ["1710057600: ERROR auth request handled", "2024-03-10T08:00:00: INFO: x"],
        "proxifier": ["[03.10 08:00:00] DEBUG - disk usage 81%"],
        "healthapp": ["20240310-08:00:07:619|ERROR|243|failed to open file"],
    }
    for layout, lines in levelled.items():
        assert dict(detect_all(lines * 5, year=2024).scores)[layout] == 0.0, layout
