"""Build the committed application-log samples in ``sample_logs/`` (run as a script).

``python -m logagent.samples.app_samples`` rewrites them from a fixed seed,
with a ``.expected.json`` sidecar each: records, and error records (ERROR or
FATAL) per component, as the generator wrote them. Each file holds odd bits
real logs have: a blank line, an invalid UTF-8 byte, a CRLF line and a last
line cut without its newline.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ERRORS = ("ERROR", "FATAL")
Rec = tuple[str, str, list[str]]  # level, component, lines (first line + continuation)

JAVA_COMPONENTS = ("com.shop.pay.StripeClient", "com.shop.web.OrderController", "org.hibernate.SQL")
JAVA_TRACE = [
    "java.lang.IllegalStateException: payment gateway returned 502",
    "\tat com.shop.pay.StripeClient.charge(StripeClient.java:118)",
    "\tat com.shop.web.OrderController.checkout(OrderController.java:64)",
    "Caused by: java.net.SocketTimeoutException: Read timed out",
    "\tat java.base/java.net.SocketInputStream.read(SocketInputStream.java:168)",
    "\t... 12 more",
]
PY_TRACE = [
    "Traceback (most recent call last):",
    '  File "/srv/app/db.py", line 88, in fetch',
    "    rows = cur.execute(sql)",
    "psycopg2.OperationalError: server closed the connection unexpectedly",
]
SYSLOG_PROGS = (
    ("sshd", 4721),
    ("CRON", 2211),
    ("kernel", 0),
    ("systemd", 1),
    ("postfix/smtpd", 903),
)

SYSLOG5424_APPS = {  # APP-NAME: (facility, host, PROCID, message when fine, when not)
    "sshd": (
        4,
        "bastion01",
        "4721",
        "Accepted publickey for deploy from 10.0.3.{n} port 5{i:04d}",
        "error: maximum authentication attempts exceeded for root from 203.0.113.{n}",
    ),
    "postfix": (
        2,
        "mail01",
        "2211",
        "7A1B2C{i:04X}: to=<ops@example.com>, status=sent (250 2.0.0 Ok)",
        "7A1B2C{i:04X}: to=<ops@example.com>, status=deferred (connect timed out)",
    ),
    "nginx": (
        16,
        "web01",
        "1123",
        "upstream response time 0.0{n}s for GET /api/orders/{i}",
        "upstream timed out (110: Connection timed out) while reading response header",
    ),
    "kubelet": (
        3,
        "node03",
        "812",
        "SyncLoop (PLEG): event for pod checkout-{i:x}: ContainerStarted",
        'Failed to pull image "registry.local/checkout:{i}": rpc error: code = NotFound',
    ),
    "billing": (17, "app02", "-", "invoice {i} settled", "payment {i} declined by gateway"),
}
SEVERITY = {"FATAL": 2, "ERROR": 3, "WARN": 4, "INFO": 6, "DEBUG": 7}
APACHE_MODULES = {  # module: (request module?, message when fine, when not)
    "core": (
        True,
        "AH00094: Command line: '/usr/sbin/apache2'",
        "AH00126: Invalid URI in request GET /..%2f..%2fetc/passwd HTTP/1.1",
    ),
    "ssl": (
        False,
        "AH01914: Configuring server www.example.com:443 for SSL protocol",
        "AH02032: Hostname api.example.com provided via SNI and hostname www.example.com "
        "provided via HTTP have no compatible SSL setup",
    ),
    "proxy": (
        True,
        "AH00942: HTTP: has acquired connection for (127.0.0.1:8080)",
        "(111)Connection refused: AH00957: HTTP: attempt to connect to 127.0.0.1:8080 "
        "(127.0.0.1) failed",
    ),
    "proxy_fcgi": (
        True,
        "AH01076: url: fcgi://127.0.0.1:9000/var/www/html/index.php",
        "AH01071: Got error 'PHP message: PHP Fatal error:  Uncaught PDOException: "
        "SQLSTATE[HY000] [2002] Connection refused in /var/www/html/db.php:14'",
    ),
    "authz_core": (
        True,
        "AH01626: authorization result of Require all granted: granted",
        "AH01630: client denied by server configuration: /var/www/html/.env",
    ),
    "mpm_event": (
        False,
        "AH00489: Apache/2.4.58 (Ubuntu) configured -- resuming normal operations",
        "AH00484: server reached MaxRequestWorkers setting, consider raising it",
    ),
}
APACHE_LEVEL = {
    "FATAL": "crit",
    "ERROR": "error",
    "WARN": "warn",
    "INFO": "notice",
    "DEBUG": "debug",
}
HADOOP_CLASSES = {  # class: (thread, message when fine, when not)
    "org.apache.hadoop.mapreduce.v2.app.MRAppMaster": (
        "main",
        "Created MRAppMaster for application appattempt_1445144423722_0020_000001",
        "Error starting MRAppMaster",
    ),
    "org.apache.hadoop.mapreduce.v2.app.rm.RMContainerAllocator": (
        "RMCommunicator Allocator",
        "Recalculating schedule, headroom=<memory:{i}, vCores:-27>",
        "ERROR IN CONTACTING RM. ",
    ),
    "org.apache.hadoop.hdfs.LeaseRenewer": (
        "LeaseRenewer:msrabi@msra-sa-41:9000",
        "Lease renewed for DFSClient_NONMAPREDUCE_1537864556_1",
        "Failed to renew lease for [DFSClient_NONMAPREDUCE_1537864556_1] for {i} seconds.  "
        "Will retry shortly ...",
    ),
    "org.apache.hadoop.mapred.TaskAttemptListenerImpl": (
        "IPC Server handler 13 on 62270",
        "Progress of TaskAttempt attempt_1445144423722_0020_m_{i:06d}_0 is : 0.{n}",
        "Diagnostics report from attempt_1445144423722_0020_m_{i:06d}_0: Error: Spill failed",
    ),
    "org.apache.hadoop.ipc.Client": (
        "ContainerLauncher #{n}",
        "Retrying connect to server: msra-sa-41/10.190.173.170:8030. Already tried {n} time(s)",
        "Failed to connect to server: msra-sa-41/10.190.173.170:8030: retries get failed",
    ),
}
HADOOP_TRACE = [
    "java.net.ConnectException: Call From MININT-FNANLI5/127.0.0.1 to msra-sa-41:8030 failed on "
    "connection exception: java.net.ConnectException: Connection refused; For more details see:  "
    "http://wiki.apache.org/hadoop/ConnectionRefused",
    "\tat sun.reflect.NativeConstructorAccessorImpl.newInstance0(Native Method)",
    "\tat org.apache.hadoop.net.NetUtils.wrapException(NetUtils.java:791)",
    "\tat org.apache.hadoop.ipc.Client.call(Client.java:1472)",
    "\tat org.apache.hadoop.mapreduce.v2.app.rm.RMContainerAllocator.heartbeat"
    "(RMContainerAllocator.java:244)",
    "Caused by: java.net.ConnectException: Connection refused",
    "\tat sun.nio.ch.SocketChannelImpl.checkConnect(Native Method)",
    "\tat org.apache.hadoop.net.NetUtils.connect(NetUtils.java:530)",
    "\t... 9 more",
]
HDFS_CLASSES = {  # class: (message when fine, when not)
    "dfs.DataNode$PacketResponder": (
        "PacketResponder {n} for block blk_{blk} terminating",
        "PacketResponder blk_{blk} {n} Exception java.io.IOException: Connection reset by peer",
    ),
    "dfs.FSNamesystem": (
        "BLOCK* NameSystem.addStoredBlock: blockMap updated: 10.251.73.220:50010 is added to "
        "blk_{blk} size 67108864",
        "BLOCK* NameSystem.addStoredBlock: addStoredBlock request received for blk_{blk} on "
        "10.251.90.239:50010 size 67108864 but it does not belong to any file.",
    ),
    "dfs.DataNode$DataXceiver": (
        "Receiving block blk_{blk} src: /10.251.43.115:45004 dest: /10.251.43.115:50010",
        "10.251.30.85:50010:DataXceiver: java.io.IOException: Block blk_{blk} is valid, and "
        "cannot be written to.",
    ),
    "dfs.DataBlockScanner": (
        "Verification succeeded for blk_{blk}",
        "Verification failed for blk_{blk}",
    ),
    "dfs.FSDataset": (
        "Deleting block blk_{blk} file /mnt/hadoop/dfs/data/current/subdir{n}/blk_{blk}",
        "Unexpected error trying to delete block blk_{blk}. BlockInfo not found in volumeMap.",
    ),
}


def _pick(rng: random.Random) -> str:
    return rng.choices(("INFO", "WARN", "ERROR", "DEBUG", "FATAL"), (60, 12, 20, 6, 2))[0]


def log4j(rng: random.Random, i: int) -> Rec:
    """A logback line, with a Java stack trace on most errors."""
    level, comp = _pick(rng), rng.choice(JAVA_COMPONENTS)
    stamp = f"2024-03-05 10:{i // 60 % 60:02d}:{i % 60:02d},{i % 1000:03d}"
    first = f"{stamp} {level:<5} [http-nio-8080-exec-{i % 9}] {comp} - request {i} handled"
    trace = JAVA_TRACE if level in ERRORS and rng.random() < 0.7 else []
    return level, comp, [first, *trace]


def python(rng: random.Random, i: int) -> Rec:
    """A Python logging line (two layouts), with a traceback on some errors."""
    level, comp = _pick(rng), rng.choice(("app.db", "app.web", "root"))
    py_level = {"WARN": "WARNING", "FATAL": "CRITICAL"}.get(level, level)
    first = (
        f"{py_level}:{comp}:job {i} done"
        if i % 2
        else f"2024-03-05 11:00:{i % 60:02d},{i % 1000:03d} - {comp} - {py_level} - job {i} done"
    )
    trace = PY_TRACE if level in ERRORS and rng.random() < 0.6 else []
    return level, comp, [first, *trace]


def syslog(rng: random.Random, i: int) -> Rec:
    """A BSD syslog line from one of several programs; errors say 'error' or 'failed'."""
    prog, pid = rng.choice(SYSLOG_PROGS)
    bad = rng.random() < 0.25
    msg = f"error: session {i} failed" if bad else f"session {i} opened for user deploy"
    head = f"{prog}[{pid}]" if pid else prog
    return (
        ("ERROR" if bad else "INFO"),
        prog,
        [f"Mar  5 12:{i // 60 % 60:02d}:{i % 60:02d} web01 {head}: {msg}"],
    )


def jsonapp(rng: random.Random, i: int) -> Rec:
    """A JSON app log object with level/logger/message keys."""
    level, comp = _pick(rng), rng.choice(("billing", "auth", "search"))
    obj = {
        "ts": f"2024-03-05T13:00:{i % 60:02d}Z",
        "level": level.lower(),
        "logger": comp,
        "message": f"event {i}",
    }
    return level, comp, [json.dumps(obj)]


def logfmt(rng: random.Random, i: int) -> Rec:
    """A logrus-style logfmt line."""
    level, comp = _pick(rng), rng.choice(("scheduler", "api", "worker"))
    line = (
        f'time="2024-03-05T14:00:{i % 60:02d}Z" level={level.lower()} '
        f'msg="task {i} finished" component={comp}'
    )
    return level, comp, [line]


def _say(fine: str, bad: str, level: str, rng: random.Random, i: int) -> str:
    """The message a record of ``level`` says (WARN and worse complain)."""
    template = bad if level in (*ERRORS, "WARN") else fine
    return template.format(i=i, n=i % 7, blk=rng.getrandbits(62) * rng.choice((1, -1)))


def syslog5424(rng: random.Random, i: int) -> Rec:
    """An RFC 5424 line: level from <PRI>; SD, MSGID, BOM and an empty message now and then."""
    level, app = _pick(rng), rng.choice(tuple(SYSLOG5424_APPS))
    facility, host, procid, fine, bad = SYSLOG5424_APPS[app]
    stamp = f"2024-03-05T15:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d}" + (
        "+01:00" if i % 4 else "Z"
    )
    sd = (
        '[timeQuality tzKnown="1" isSynced="1"]'
        if i % 5 == 0
        else f'[origin ip="10.0.3.7"][meta sequenceId="{i}"]'
        if i % 7 == 0
        else '[exampleSDID@32473 note="a \\] bracket"]'
        if i % 11 == 0
        else "-"
    )
    msgid = "ID47" if i % 3 == 0 else "-"
    msg = (
        ""
        if i % 17 == 0
        else " " + ("\ufeff" if i % 13 == 0 else "") + _say(fine, bad, level, rng, i)
    )
    head = f"<{facility * 8 + SEVERITY[level]}>1 {stamp} {host} {app} {procid} {msgid} {sd}"
    return level, app, [head + msg]


def apache_error(rng: random.Random, i: int) -> Rec:
    """An httpd 2.4 error-log line; request modules name the client."""
    level, module = _pick(rng), rng.choice(tuple(APACHE_MODULES))
    per_request, fine, bad = APACHE_MODULES[module]
    stamp = f"Tue Mar 05 16:{i // 60 % 60:02d}:{i % 60:02d}.{rng.randrange(10**6):06d} 2024"
    client = f" [client 203.0.113.{i % 250}:{40000 + i}]" if per_request else ""
    msg = _say(fine, bad, level, rng, i)
    pid = f"[pid {2200 + i % 5}:tid 1398720{i % 9}]"
    return level, module, [f"[{stamp}] [{module}:{APACHE_LEVEL[level]}] {pid}{client} {msg}"]


def hadoop(rng: random.Random, i: int) -> Rec:
    """A MapReduce application-master line, with a Java stack trace on most errors."""
    level, cls = _pick(rng), rng.choice(tuple(HADOOP_CLASSES))
    thread, fine, bad = HADOOP_CLASSES[cls]
    stamp = f"2015-10-18 18:{i // 60 % 60:02d}:{i % 60:02d},{rng.randrange(1000):03d}"
    first = f"{stamp} {level} [{thread.format(n=i % 7)}] {cls}: {_say(fine, bad, level, rng, i)}"
    trace = HADOOP_TRACE if level in ERRORS and rng.random() < 0.7 else []
    return level, cls, [first, *trace]


def hdfs(rng: random.Random, i: int) -> Rec:
    """An HDFS (LogHub style) line: yymmdd hhmmss, thread id, level, class: message."""
    level, cls = _pick(rng), rng.choice(tuple(HDFS_CLASSES))
    stamp = f"081109 20{i // 60 % 60:02d}{i % 60:02d} {rng.randrange(13, 3000)}"
    return level, cls, [f"{stamp} {level} {cls}: {_say(*HDFS_CLASSES[cls], level, rng, i)}"]


BUILDERS: dict[str, tuple[str, Callable[[random.Random, int], Rec]]] = {
    "app_log4j.log": ("log4j", log4j),
    "app_python.log": ("python", python),
    "syslog.log": ("syslog3164", syslog),
    "app.jsonl": ("jsonapp", jsonapp),
    "app_logfmt.log": ("logfmt", logfmt),
    "syslog5424.log": ("syslog5424", syslog5424),
    "apache_error.log": ("apache_error", apache_error),
    "hadoop.log": ("hadoop", hadoop),
    "hdfs.log": ("hadoop", hdfs),
}


def build(
    name: str, fmt: str, make: Callable[[random.Random, int], Rec], *, n: int = 300
) -> tuple[bytes, dict[str, object]]:
    """The bytes of one sample and its truth."""
    rng = random.Random(name)
    recs = [make(rng, i) for i in range(n)]
    errors = Counter(comp for level, comp, _ in recs if level in ERRORS)
    lines = [line for _, _, rec in recs for line in rec]
    data = "\n".join(lines).encode()
    # odd bits: a blank line, a line of invalid bytes, a CRLF record line, a cut last line
    k = data.index(b"\n", len(data) // 3)
    data = data[:k] + b"\n\n\xff\xfe garbage" + data[k:]
    k = data.index(b"\n", len(data) // 2)
    data = data[:k] + b"\r" + data[k:] + b"\n2024-03-05 1"
    truth = {
        "format": fmt,
        "records": n,
        "errors_by_component": dict(sorted(errors.items())),
    }
    return data, truth


def main() -> None:
    """Write every app sample and its sidecar into ``sample_logs/``."""
    out = Path(__file__).resolve().parents[2] / "sample_logs"
    for name, (fmt, make) in BUILDERS.items():
        data, truth = build(name, fmt, make)
        (out / name).write_bytes(data)
        (out / f"{name}.expected.json").write_text(json.dumps(truth, indent=2) + "\n")


if __name__ == "__main__":
    main()
