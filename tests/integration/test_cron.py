"""`logagent cron` as a subprocess: slices, real logrotate, SIGKILL, overlap, bad states."""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from logagent.samples import generate

LOGROTATE = shutil.which("logrotate") or (
    "/usr/sbin/logrotate" if os.path.exists("/usr/sbin/logrotate") else None
)
needs_logrotate = pytest.mark.skipif(
    LOGROTATE is None, reason="the logrotate binary is not installed (apt-get install logrotate)"
)
#: logrotate variants drawn between slices: rename, copytruncate, compress, delaycompress, dateext
VARIANTS = {
    "rename": [],
    "rename-compress": ["compress"],
    "rename-delaycompress": ["compress", "delaycompress"],
    "create-delaycompress": ["create", "compress", "delaycompress"],
    "copytruncate": ["copytruncate"],
    "copytruncate-compress": ["copytruncate", "compress"],
    "dateext-compress": ["dateext", "dateformat -%Y%m%d-%s", "compress"],
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, dict[str, Any]]:
    """A small generated access log and its ground truth."""
    path = tmp_path_factory.mktemp("cron") / "gen.log"
    generate(path, scenario="dominant", size_mb=0.25, seed=11)
    truth = json.loads(Path(f"{path}.truth.json").read_text())
    return path.read_bytes(), truth


def cron(
    state: Path, *args: str, log: Path | None = None, logs: Sequence[str] = ()
) -> subprocess.CompletedProcess[str]:
    """Run `logagent cron` (JSON, every key) on ``log`` or ``logs`` and return the process."""
    paths = [str(log)] if log is not None else list(logs)
    return subprocess.run(
        [sys.executable, "-m", "logagent", "cron", *paths, "--state", str(state), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def window_counts(proc: subprocess.CompletedProcess[str]) -> tuple[dict[str, int], int]:
    """The window's 5xx count per route and its lines read, from a run's JSON."""
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    return {e["key"]: e["count"] for e in data["answer"]["top"]}, data["progress"]["lines_read"]


def truth_counts(truth: dict[str, Any]) -> dict[str, int]:
    """The generator's 5xx count per route."""
    return {r: v["5xx"] for r, v in truth["routes"].items() if v["5xx"]}


def cuts(rng: random.Random, size: int, n: int) -> list[int]:
    """``n`` random byte positions (mid-line too) splitting ``size`` bytes into n+1 slices."""
    return [*sorted(rng.sample(range(1, size), n)), size]


def logrotate(log: Path, variant: str, workdir: Path) -> None:
    """Rotate ``log`` with the real logrotate binary and the variant's directives."""
    assert LOGROTATE is not None
    directives = "\n    ".join(["rotate 1000", "missingok", *VARIANTS[variant]])
    conf = workdir / f"{variant}.conf"
    conf.write_text(f"{log} {{\n    {directives}\n}}\n")
    if "dateext" in variant:  # dated names are unique per second
        time.sleep(1.05)
    subprocess.run(
        [LOGROTATE, "-f", "-s", str(workdir / "logrotate.status"), str(conf)],
        check=True,
        capture_output=True,
    )


def append(log: Path, data: bytes) -> None:
    """What a logger does: open for appending (creating the file if needed), write."""
    with open(log, "ab") as f:
        f.write(data)


def sliced_with_logrotate(
    rng: random.Random, data: bytes, log: Path, tmp_path: Path, used: set[str]
) -> Iterator[tuple[int, int, bool]]:
    """Append ``data`` to ``log`` in 20 random slices (the last to the end); between slices
    the real logrotate rotates it, every variant first, then at random (between lines).

    Yields (slice index, bytes appended so far, rotated before this run); ``used`` gathers
    the variants run.
    """
    names = sorted(VARIANTS)
    pos = 0
    for i, cut in enumerate(cuts(rng, len(data), 19)):
        rotate = i > 0 and (i <= len(names) or rng.random() < 0.3) and cut < len(data)
        end = max(pos, data.index(b"\n", cut - 1) + 1 if rotate else cut)  # rotated between lines
        append(log, data[pos:end])
        pos = end
        if rotate:
            variant = names[len(used)] if len(used) < len(names) else rng.choice(names)
            used.add(variant)
            logrotate(log, variant, tmp_path)
        yield i, end, rotate


@needs_logrotate
@pytest.mark.parametrize("seed", [1, 2])
def test_random_slices_with_logrotate_count_exactly(
    tmp_path: Path, generated: tuple[bytes, dict[str, Any]], seed: int
) -> None:
    """≥ 20 random slices, logrotate (every variant) between them: the window equals the truth."""
    data, truth = generated
    rng = random.Random(seed)
    log, state = tmp_path / "access.log", tmp_path / "job.sqlite"
    used: set[str] = set()
    rotations = 0
    for _, _, rotated in sliced_with_logrotate(rng, data, log, tmp_path, used):
        rotations += rotated
        proc = cron(state, "--json", "--top", "1000", log=log)
        assert proc.returncode == 0, proc.stderr
    assert used == set(VARIANTS)
    assert rotations >= len(VARIANTS)
    counts, lines = window_counts(proc)  # after the last slice: the whole log
    assert counts == truth_counts(truth)
    assert lines == truth["lines"]


#: the test's own reading of a generated line: its time, raw path and status (not logagent's)
STAMPED = re.compile(rb'\[(\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4})\] "\S+ (\S+)[^"]*" (\d{3}) ')
HOUR = 3600


def own_parse(data: bytes) -> list[tuple[float, str, int]]:
    """(epoch s, path without its query, status) of each complete line of ``data``."""
    out = []
    for line in data.split(b"\n")[:-1]:  # the last piece is a partial line, or empty
        m = STAMPED.search(line)
        assert m is not None, line
        when = datetime.strptime(m[1].decode(), "%d/%b/%Y:%H:%M:%S %z").timestamp()
        out.append((when, m[2].decode().split("?")[0], int(m[3])))
    return out


def truth_in_window(lines: list[tuple[float, str, int]], now_s: float, hours: int) -> Counter[str]:
    """5xx per raw path of the records whose time is in the window's whole hours."""
    hi = (now_s // HOUR) * HOUR + HOUR  # the hour holding now is the window's last
    lo = hi - hours * HOUR
    return Counter(path for t, path, status in lines if 500 <= status <= 599 and lo <= t < hi)


def iso_utc(time_s: float) -> str:
    """``--now`` for ``time_s``."""
    return datetime.fromtimestamp(time_s, UTC).isoformat()


@needs_logrotate
def test_window_by_record_time_in_random_slices_with_logrotate(
    tmp_path: Path, generated: tuple[bytes, dict[str, Any]]
) -> None:
    """20 random slices, logrotate between them, "now" moving with the log: after every run the
    6 h window's 5xx per path equal the test's own count over those hours of the lines so far."""
    data, truth = generated
    lines = own_parse(data)
    assert sum(1 for _, _, s in lines if 500 <= s <= 599) == truth["lines_5xx"]  # the parse
    rng = random.Random(5)
    log, state = tmp_path / "access.log", tmp_path / "job.sqlite"
    used: set[str] = set()
    now_s, checked = 0.0, 0
    for i, end, _ in sliced_with_logrotate(rng, data, log, tmp_path, used):
        so_far = lines[: data.count(b"\n", 0, end)]
        if so_far:  # a live log's clock: a little after its last line, never going back
            now_s = max(now_s, so_far[-1][0] + rng.uniform(0, 1800))
        args = ("--json", "--top", "1000", "--no-normalize", "--window", "6h")
        proc = cron(state, *args, "--now", iso_utc(now_s), log=log)
        counts, _ = window_counts(proc)
        assert counts == dict(truth_in_window(so_far, now_s, 6)), f"slice {i}"
        checked += sum(counts.values())
    assert used == set(VARIANTS)
    assert checked > 0


def test_inode_reuse_and_vanished_file_by_hand(
    tmp_path: Path, generated: tuple[bytes, dict[str, Any]]
) -> None:
    """A file removed (vanished), then a new one at its name (often on the same inode): exact."""
    data, truth = generated
    lines = data.splitlines(keepends=True)
    parts = [b"".join(lines[a:b]) for a, b in _ranges(len(lines), 6)]
    log, state = tmp_path / "app.log", tmp_path / "job.sqlite"
    for i, part in enumerate(parts):
        if i in (2, 4):  # read to its end by the last run, then deleted and made again
            os.unlink(log)
            proc = cron(state, "--json", "--top", "1000", log=log)  # the file is gone
            assert proc.returncode == 0, proc.stderr
            append(log, part)
        else:
            append(log, part)
        proc = cron(state, "--json", "--top", "1000", log=log)
        assert proc.returncode == 0, proc.stderr
    counts, n = window_counts(proc)
    assert counts == truth_counts(truth)
    assert n == truth["lines"]


def _ranges(n: int, k: int) -> list[tuple[int, int]]:
    step = -(-n // k)
    return [(a, min(n, a + step)) for a in range(0, n, step)]


def test_a_path_that_is_not_there_is_an_input_error_until_it_appears(tmp_path: Path) -> None:
    """A job none of whose paths is a file (a typo, a glob the shell did not expand, a log not
    written yet) fails: exit 2 (nagios UNKNOWN), nothing committed; it had answered "0 events",
    exit 0 (nagios OK), on every run. Once the log appears it is read from its start. A path
    missing next to one that is there is named in a warning; a directory is an error."""
    log, state = tmp_path / "later.log", tmp_path / "s.sqlite"
    first = cron(state, "--json", log=log)
    assert first.returncode == 2 and first.stdout == ""
    assert f"{log}: no such file" in first.stderr and "Traceback" not in first.stderr
    nagios = cron(state, "--exit-codes", "nagios", log=log)
    assert nagios.returncode == 3 and nagios.stdout.startswith("LOGAGENT UNKNOWN")
    glob = cron(state, "--json", logs=[str(tmp_path / "*.log")])
    assert glob.returncode == 2 and "the shell expands it" in glob.stderr
    log.write_bytes(_lines(10, 500))
    assert window_counts(cron(state, "--json", log=log))[1] == 10
    other = tmp_path / "other.log"
    both = cron(tmp_path / "b.sqlite", "--json", logs=[str(log), str(other)])
    warnings = json.loads(both.stdout)["warnings"]
    assert any(w.startswith(f"{other}: no such file") for w in warnings), warnings
    folder = cron(tmp_path / "d.sqlite", "--json", log=tmp_path)
    assert folder.returncode == 2 and "is a directory" in folder.stderr


def test_a_longer_copy_moved_into_place_is_read_on_from_the_offset(tmp_path: Path) -> None:
    """rsync, ``cp`` and ``mv``, ``sed -i``: a new file at the path that begins with all that
    was read of the old one (gone) is its continuation, read from the stored offset, said;
    it had been read whole again, 800 lines counted for 500, "exact". A new file that does
    not begin so is a new file (read from 0)."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    first, more = _lines(30, 500), _lines(20, 502, start=30)
    log.write_bytes(first)
    assert window_counts(cron(state, "--json", log=log))[1] == 30
    temp = tmp_path / ".a.log.tmp"
    temp.write_bytes(first + more)
    temp.rename(log)  # a new inode, the old one gone
    proc = cron(state, "--json", log=log)
    counts, lines = window_counts(proc)
    assert lines == 50 and sum(counts.values()) == 50
    warnings = json.loads(proc.stdout)["warnings"]
    assert any("replaced by a file that begins as the one read" in w for w in warnings)
    other = tmp_path / ".b.tmp"
    other.write_bytes(_lines(5, 503, start=7))
    other.rename(log)
    assert window_counts(cron(state, "--json", log=log))[1] == 55
    # the same first 4 KiB, a line edited before the offset: no line ends there, read whole
    state2, log2 = tmp_path / "s2.sqlite", tmp_path / "b.log"
    log2.write_bytes(first)
    assert len(first) > 4096 and window_counts(cron(state2, "--json", log=log2))[1] == 30
    cut = first.rindex(b"\n", 0, len(first) - 1)  # inside the last line: one byte longer
    edited = tmp_path / ".c.tmp"
    edited.write_bytes(first[:cut] + b"X" + first[cut:] + more)
    edited.rename(log2)
    proc = cron(state2, "--json", log=log2)
    data = json.loads(proc.stdout)
    assert data["progress"]["lines_read"] == 30 + 30 + 20  # a new file: read whole
    said = data["warnings"]
    assert not any("replaced by a file that begins" in w for w in said)
    # its first lines were read before (its head is known): counted twice, so not exact
    assert any("counted twice" in w for w in said), said
    assert (proc.returncode, data["status"]) == (4, "partial"), proc.stdout


def test_same_inode_new_head_is_a_new_file(tmp_path: Path) -> None:
    """A file truncated and rewritten in place (same inode, other head) is read again from 0."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    first = _lines(50, 500)
    log.write_bytes(first)
    assert window_counts(cron(state, "--json", log=log))[1] == 50
    ino = os.stat(log).st_ino
    with open(log, "r+b") as f:  # inode reuse without a copy: the old tail is gone
        f.truncate(0)
        f.write(_lines(30, 502))
    assert os.stat(log).st_ino == ino
    proc = cron(state, "--json", log=log)
    assert window_counts(proc)[1] == 80
    assert json.loads(proc.stdout)["incremental"]["rotations"] == 1


def _lines(n: int, status: int, start: int = 0) -> bytes:
    from logagent.testing import combined_line

    return "".join(combined_line(f"/r/{(start + i) % 3}", status) + "\n" for i in range(n)).encode()


def test_half_written_line_waits_for_the_next_run(tmp_path: Path) -> None:
    """A last line without its newline is not counted until it is complete."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    whole = _lines(10, 500)
    log.write_bytes(whole[:-20])
    assert window_counts(cron(state, "--json", log=log))[1] == 9
    append(log, whole[-20:])
    counts, n = window_counts(cron(state, "--json", log=log))
    assert n == 10
    assert sum(counts.values()) == 10


@pytest.mark.parametrize("cut", ["unit", "byte", "pair"])
def test_a_live_utf16_log_half_written_line_waits_for_the_next_run(
    tmp_path: Path, cut: str
) -> None:
    """SQL Server on Linux writes its live ERRORLOG in UTF-16: read as the UTF-8 it holds, a
    last line without its newline waits for the next run there too (never counted twice),
    also when the writer was caught mid-character (an odd byte, half a surrogate pair) in
    a file short enough for its whole content to be its head (identity)."""
    log, state = tmp_path / "errorlog", tmp_path / "s.sqlite"
    text = _lines(10, 500).decode().replace("\n", "\r\n")
    whole = ("\ufeff" + text[:-30] + "\U0001f600" + text[-30:]).encode("utf-16-le")
    at = {"unit": len(whole) - 40, "byte": len(whole) - 41, "pair": len(whole) - 62}[cut]
    if cut == "pair":
        assert whole[at - 2 : at] == "\U0001f600".encode("utf-16-le")[:2]  # the high half
    log.write_bytes(whole[:at])
    assert window_counts(cron(state, "--json", log=log))[1] == 9
    append(log, whole[at:] + "/r/0 half".encode("utf-16-le"))
    counts, n = window_counts(cron(state, "--json", log=log))
    assert n == 10 and sum(counts.values()) == 10
    append(log, " done\r\n".encode("utf-16-le"))
    assert window_counts(cron(state, "--json", log=log))[1] == 11  # the late line, once


def test_a_utf16_log_rotated_and_compressed_is_followed(tmp_path: Path) -> None:
    """logrotate's compress on a UTF-16 log: the .gz's content is found by its head (the
    mark inside the gzip is read), so the lines written before the rotation are counted
    once, and the new file's too."""
    log, state = tmp_path / "errorlog", tmp_path / "s.sqlite"
    first = ("\ufeff" + _lines(8, 500).decode()).encode("utf-16-le")
    log.write_bytes(first)
    assert window_counts(cron(state, "--json", log=log))[1] == 8
    more = _lines(5, 502).decode().encode("utf-16-le")
    append(log, more)
    (tmp_path / "errorlog.1.gz").write_bytes(gzip.compress(first + more))
    log.unlink()
    log.write_bytes(("\ufeff" + _lines(4, 503).decode()).encode("utf-16-le"))
    second = cron(state, "--json", log=log)
    counts, n = window_counts(second)
    assert n == 17 and sum(counts.values()) == 17  # the window: 8 + 5 + 4, none twice
    assert json.loads(second.stdout)["incremental"]["files"][0]["lines_new"] == 9


@needs_logrotate
@pytest.mark.parametrize("variant", ["copytruncate", "copytruncate-compress"])
@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_a_utf16_log_cut_by_copytruncate_goes_on_without_its_mark(
    tmp_path: Path, variant: str, codec: str
) -> None:
    """logrotate's copytruncate empties a UTF-16 log in place, and its writer goes on in the
    same file without a byte-order mark. The state keeps the codec the mark named, so the
    lines after the cut are read as the same text (exit 3 "looks UTF-16 encoded without a
    byte-order mark" before), in this run and the next."""
    log, state = tmp_path / "errorlog", tmp_path / "s.sqlite"
    log.write_bytes(("\ufeff" + _lines(8, 500).decode()).encode(codec))
    assert window_counts(cron(state, "--json", log=log))[1] == 8
    append(log, _lines(5, 502).decode().encode(codec))  # not read before the cut
    logrotate(log, variant, tmp_path)
    assert log.stat().st_size == 0
    append(log, _lines(4, 503).decode().encode(codec))  # no mark
    counts, n = window_counts(cron(state, "--json", log=log))
    assert n == 17 and sum(counts.values()) == 17  # 8 + 5 + 4, none twice
    append(log, _lines(3, 504).decode().encode(codec))
    counts, n = window_counts(cron(state, "--json", log=log))
    assert n == 20 and sum(counts.values()) == 20
    logrotate(log, variant, tmp_path)  # and the app writes UTF-8 again: read as such
    append(log, _lines(2, 500))
    counts, n = window_counts(cron(state, "--json", log=log))
    assert n == 22 and sum(counts.values()) == 22


def test_start_end_on_a_live_utf16_log_reads_only_what_comes_after(tmp_path: Path) -> None:
    """--start end on a UTF-16 log starts after its last complete line, as on a UTF-8 one."""
    log, state = tmp_path / "errorlog", tmp_path / "s.sqlite"
    log.write_bytes(("\ufeff" + _lines(10, 500).decode()).encode("utf-16-le"))
    assert window_counts(cron(state, "--json", "--start", "end", log=log))[1] == 0
    append(log, _lines(3, 503).decode().encode("utf-16-le"))
    counts, n = window_counts(cron(state, "--json", log=log))
    assert n == 3 and sum(counts.values()) == 3


def test_sigkill_at_random_points_never_loses_or_doubles(
    tmp_path: Path, generated: tuple[bytes, dict[str, Any]]
) -> None:
    """20 seeded runs killed (SIGKILL) at random points: the next runs still count exactly."""
    data, truth = generated
    rng = random.Random(7)
    log, state = tmp_path / "access.log", tmp_path / "job.sqlite"
    started = time.monotonic()
    append(log, data[:1000])
    cron(state, "--json", log=log)
    typical = max(0.5, time.monotonic() - started)
    pos = 1000
    killed = 0
    for end in cuts(rng, len(data) - 1000, 19):
        end += 1000
        append(log, data[pos:end])
        pos = end
        proc = subprocess.Popen(
            [sys.executable, "-m", "logagent", "cron", str(log), "--state", str(state), "--json"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.05, typical * 1.2))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed += 1
        else:  # the run was quicker than the first one: aim the next kills earlier
            typical = max(0.2, typical * 0.8)
        proc.wait()
    assert killed >= 10  # most kills landed inside a run
    counts, lines = window_counts(cron(state, "--json", "--top", "1000", log=log))
    assert counts == truth_counts(truth)
    assert lines == truth["lines"]
    now_s = own_parse(data)[-1][0]  # the windowed totals, by the records' time, are exact too
    args = ("--json", "--top", "1000", "--window", "6h", "--now", iso_utc(now_s))
    windowed = cron(state, *args, log=log)
    assert window_counts(windowed)[0] == timeline_truth(truth, now_s, 6)


def timeline_truth(truth: dict[str, Any], now_s: float, hours: int) -> dict[str, int]:
    """The generator's 5xx per route over the window's whole hours (its hourly timeline)."""
    hi = (now_s // HOUR) * HOUR + HOUR
    total: Counter[str] = Counter()
    for stamp, routes in truth["timeline_5xx_1h"].items():
        if hi - hours * HOUR <= datetime.fromisoformat(stamp).timestamp() < hi:
            total.update(routes)
    return dict(total)


def test_second_run_while_one_holds_the_state_exits_75_and_changes_nothing(
    tmp_path: Path,
) -> None:
    """A run started while another holds the lock exits 75 at once; the state is unchanged."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(20, 503))
    assert cron(state, "--json", log=log).returncode == 0
    append(log, _lines(5, 503))
    before = _digest(state)
    fd = os.open(state, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # what a running `logagent cron` holds
        proc = cron(state, "--json", log=log)
    finally:
        os.close(fd)
    assert proc.returncode == 75
    assert "another `logagent cron` run holds this state" in proc.stderr
    assert _digest(state) == before
    assert window_counts(cron(state, "--json", log=log))[1] == 25


def test_two_runs_started_at_once_count_once(tmp_path: Path) -> None:
    """Two runs at once: each exits 0 or 75, and the counts stay exact."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(200, 500))
    cmd = [sys.executable, "-m", "logagent", "cron", str(log), "--state", str(state), "--json"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    codes = sorted(p.wait() for p in procs)
    assert codes in ([0, 0], [0, 75])
    assert window_counts(cron(state, "--json", log=log))[1] == 200


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    for suffix in ("", "-wal"):
        p = Path(f"{path}{suffix}")
        if p.exists():
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.mark.parametrize(
    "content",
    [b"just some text, not a database\n", b"SQLite format 3\x00" + b"\x00" * 200],
    ids=["foreign", "corrupt"],
)
def test_foreign_or_corrupt_state_exits_2_and_is_kept(tmp_path: Path, content: bytes) -> None:
    """A state file that is not ours: a clear message, exit 2, the file untouched."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(5, 500))
    state.write_bytes(content)
    proc = cron(state, "--json", log=log)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "state" in proc.stderr
    assert state.read_bytes() == content


def test_a_state_damaged_past_its_first_pages_exits_2_and_is_kept(tmp_path: Path) -> None:
    """A page in the middle of the state damaged (its header intact): the run finds it when it
    reads there, and says so (exit 2), as for a state corrupt from its first page; it had
    been an "internal error ... a bug" (exit 1; a review). --status says the same."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(b"".join(_lines(40, 500, start=i) for i in range(0, 4000, 40)))
    assert cron(state, "--json", log=log).returncode == 0
    append(log, _lines(50, 502))
    with open(state, "r+b") as f:
        f.seek(8192)
        f.write(b"\xde\xad" * 2000)
    damaged = state.read_bytes()
    for args in (("--json",), ("--status",)):
        proc = cron(state, *args, log=log)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "the state file is corrupt" in proc.stderr and "Traceback" not in proc.stderr
    assert state.read_bytes() == damaged


def test_a_state_another_process_holds_exits_75(tmp_path: Path) -> None:
    """A transaction another process holds on the state (a sqlite3 shell, a backup): the run
    waits a little, then exits 75 (try again later) and changes nothing; it had been an
    "internal error ... a bug" (exit 1; a review). The next run counts the new lines."""
    import sqlite3

    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(5, 500))
    assert window_counts(cron(state, "--json", log=log))[1] == 5
    append(log, _lines(3, 500, start=5))
    other = sqlite3.connect(state, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        proc = cron(state, "--json", log=log)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert proc.returncode == 75, proc.stderr
    assert "another process holds the state file's database" in proc.stderr
    assert window_counts(cron(state, "--json", log=log))[1] == 8


def test_reset_starts_over_and_status_shows_the_state(tmp_path: Path) -> None:
    """--status lists files and offsets; --reset forgets them and the next run reads from 0."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(7, 500))
    cron(state, "--json", log=log)
    status = json.loads(cron(state, "--status", "--json").stdout)
    assert status["files"][0]["offset"] == log.stat().st_size
    assert status["runs"] == 1
    assert status["buckets"] == {  # /r/0 /r/1 /r/2 are one route, one status, one hour
        "rows": 1,
        "first": "2026-11-28T13:00:00Z",
        "last": "2026-11-28T13:00:00Z",
    }
    assert window_counts(cron(state, "--json", log=log))[1] == 7  # nothing new: still 7
    proc = cron(state, "--reset", "--json", log=log)
    assert window_counts(proc)[1] == 7
    assert json.loads(proc.stdout)["incremental"]["runs_merged"] == 1


def test_other_question_on_the_same_state_is_refused(tmp_path: Path) -> None:
    """A state made for top-errors is not reused for another question (exit 2)."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(5, 500))
    cron(state, "--json", log=log)
    proc = cron(state, "--json", "-q", "status", log=log)
    assert proc.returncode == 2
    assert "another job" in proc.stderr


def _at(lines: bytes, stamp: str) -> bytes:
    """``_lines`` restamped at ``stamp`` (``01/Jan/2026:00:10:00``)."""
    return lines.replace(b"28/Nov/2026:13:55:36", stamp.encode())


def test_window_is_chosen_by_the_records_time_not_the_runs(tmp_path: Path) -> None:
    """--window picks records by their own time: one run reading 2 h of log, late lines too."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    early, late = _at(_lines(10, 500), "01/Jan/2026:00:10:00"), _lines(4, 500)
    log.write_bytes(early + _at(late, "01/Jan/2026:02:10:00"))
    first = cron(state, "--json", "--window", "3h", "--now", "2026-01-01T02:30:00", log=log)
    assert sum(window_counts(first)[0].values()) == 14
    window = json.loads(first.stdout)["incremental"]["window"]
    assert (window["from"], window["to"]) == ("2026-01-01T00:00:00Z", "2026-01-01T03:00:00Z")
    one_hour = ("--json", "--window", "1h", "--now", "2026-01-01T02:30:00")
    assert sum(window_counts(cron(state, *one_hour, log=log))[0].values()) == 4  # the same run's
    append(log, _at(_lines(3, 503), "01/Jan/2026:00:20:00"))  # late lines of an old hour
    later = ("--json", "--now", "2026-01-01T02:40:00")
    assert sum(window_counts(cron(state, *later, "--window", "1h", log=log))[0].values()) == 4
    assert sum(window_counts(cron(state, *later, "--window", "3h", log=log))[0].values()) == 17
    assert sum(window_counts(cron(state, *later, log=log))[0].values()) == 17  # since the first
    future = cron(state, "--json", "--window", "1h", "--now", "2026-01-01T05:00:00", log=log)
    assert window_counts(future)[0] == {}
    # a run asked for everything since the first: a later --window prunes nothing of it (it
    # had pruned all but the longest window asked, 3 h, and this answered {} for good)
    since_first = cron(state, "--json", "--now", "2026-01-01T05:00:00", log=log)
    assert sum(window_counts(since_first)[0].values()) == 17


def _stored_rows(state: Path) -> int:
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "cron", "--state", str(state), "--status", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return int(json.loads(proc.stdout)["buckets"]["rows"])


@pytest.mark.parametrize("unbounded_first", [False, True])
def test_buckets_past_the_longest_window_asked_are_pruned(
    tmp_path: Path, unbounded_first: bool
) -> None:
    """A job whose runs all give --window keeps only the longest window asked (3 h here):
    older buckets are dropped. One run without --window (everything since the first run)
    keeps them all, whatever window a later run asks for."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_at(_lines(10, 500), "01/Jan/2026:00:10:00"))
    first = ["--window", "3h"] if not unbounded_first else []
    cron(state, "--json", *first, "--now", "2026-01-01T00:30:00", log=log)
    stored = _stored_rows(state)
    assert stored > 0
    later = cron(state, "--json", "--window", "1h", "--now", "2026-01-01T05:00:00", log=log)
    assert window_counts(later)[0] == {}
    assert _stored_rows(state) == (stored if unbounded_first else 0)
    kept = [w for w in json.loads(later.stdout)["warnings"] if "keeps every count" in w]
    assert bool(kept) == unbounded_first  # said: the state grows with the log
    since_first = window_counts(cron(state, "--json", "--now", "2026-01-01T05:10:00", log=log))
    assert sum(since_first[0].values()) == (10 if unbounded_first else 0)
    detail = json.loads(later.stdout)["recuse"]["detail"]
    assert detail.startswith(("no 5xx line in the window 2026-01-01T05:00:00Z", "no record is"))


def test_a_longer_window_than_the_state_keeps_says_what_it_covers(tmp_path: Path) -> None:
    """Runs with --window 1h pruned the older counts; a later --window 48h (or no window) is
    answered from what is left, and says so: its window starts where the counts kept start,
    the asked start is kept beside it, and a warning names both. It had answered 4 of the 14
    records of those 48 h, "exact", silently."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_at(_lines(10, 500), "01/Jan/2026:00:10:00"))
    cron(state, "--json", "--window", "1h", "--now", "2026-01-01T00:30:00", log=log)
    append(log, _at(_lines(4, 500), "01/Jan/2026:05:10:00"))
    cron(state, "--json", "--window", "1h", "--now", "2026-01-01T05:30:00", log=log)
    for wide in (["--window", "48h"], []):
        proc = cron(state, "--json", *wide, "--now", "2026-01-01T05:40:00", log=log)
        data = json.loads(proc.stdout)
        assert sum(e["count"] for e in data["answer"]["top"]) == 4
        # the window asked is not all counted: a partial answer (exit 4), not "exact"
        assert (proc.returncode, data["status"]) == (4, "partial"), proc.stdout
        window = data["incremental"]["window"]
        assert window["from"] == "2026-01-01T05:00:00Z"
        assert window["asked_from"] == ("2025-12-30T06:00:00Z" if wide else None)
        said = [w for w in data["warnings"] if "reaches before what this state keeps" in w]
        assert said and "2026-01-01T05:00:00Z" in said[0], data["warnings"]
    within = cron(state, "--json", "--window", "1h", "--now", "2026-01-01T05:40:00", log=log)
    assert not any("reaches before" in w for w in json.loads(within.stdout)["warnings"])
    assert (within.returncode, json.loads(within.stdout)["status"]) == (0, "exact")


def test_records_without_a_time_are_counted_at_the_run_and_said(tmp_path: Path) -> None:
    """A format without timestamps: the window falls back to the runs' time, with a warning."""
    log, state = tmp_path / "a.jsonl", tmp_path / "s.sqlite"
    rows = [{"path": f"/r/{i % 2}", "status": 500, "bytes": 10} for i in range(6)]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    first = cron(state, "--json", "--window", "1h", "--now", "2026-01-01T00:30:00", log=log)
    assert sum(window_counts(first)[0].values()) == 6
    data = json.loads(first.stdout)
    assert data["incremental"]["window"]["untimed_records"] == 6
    assert any("no time" in w and "time of the run" in w for w in data["warnings"])
    append(log, "".join(json.dumps(r) + "\n" for r in rows[:2]).encode())
    later = cron(state, "--json", "--window", "1h", "--now", "2026-01-01T02:30:00", log=log)
    assert sum(window_counts(later)[0].values()) == 2  # the first run's records are 2 h old


def test_alerts_exit_5_and_nagios_status_line(tmp_path: Path) -> None:
    """count>N fires (exit 5); nagios prints one status line with perfdata and exits 2."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(30, 502) + _lines(70, 200))
    proc = cron(state, "--json", "--alert", "count>10", log=log)
    assert proc.returncode == 5
    assert json.loads(proc.stdout)["alerts"][0]["alert"] == "count>10"
    quiet = cron(state, "--json", "--alert", "count>100", log=log)
    assert quiet.returncode == 0
    nag = cron(state, "--exit-codes", "nagios", "--alert", "rate>0.1,0.2", log=log)
    assert nag.returncode == 2
    line = nag.stdout.strip()
    assert line.startswith("LOGAGENT CRITICAL - rate 0.3 > 0.2 |")
    assert "'rate'=0.3;0.1;0.2" in line
    warn = cron(state, "--exit-codes", "nagios", "--alert", "rate>0.25,0.5", log=log)
    assert warn.returncode == 1


def test_new_key_alert_fires_when_a_key_enters_the_top(tmp_path: Path) -> None:
    """new-key: a route in the window's top that the previous run's top did not hold."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(3, 500))  # routes /r/0 /r/1 /r/2
    assert cron(state, "--json", "--alert", "new-key", log=log).returncode == 0
    from logagent.testing import combined_line

    append(log, (combined_line("/brand/new", 503) + "\n").encode() * 5)
    proc = cron(state, "--json", "--alert", "new-key", log=log)
    assert proc.returncode == 5
    assert "/brand/new" in json.loads(proc.stdout)["alerts"][0]["detail"]


def test_compressed_rotation_by_hand_is_finished_through_the_decompressor(tmp_path: Path) -> None:
    """access.log -> access.log.1.gz between runs: the unread tail is read from the .gz."""
    log, state = tmp_path / "access.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(10, 500))
    cron(state, "--json", log=log)
    append(log, _lines(6, 500))
    with open(log, "rb") as src, gzip.open(f"{log}.1.gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    log.unlink()
    append(log, _lines(3, 500))
    proc = cron(state, "--json", log=log)
    assert window_counts(proc)[1] == 19
    files = json.loads(proc.stdout)["incremental"]["files"]
    assert files[0]["rotated_from"].endswith("access.log.1.gz")


@needs_logrotate
@pytest.mark.parametrize("variant", ["copytruncate-compress", "rename-delaycompress"])
def test_a_line_cut_by_a_rotation_never_stops_the_job(tmp_path: Path, variant: str) -> None:
    """A rotation while the last line is half written leaves it cut at the end of the rotated
    file. The job goes on: it had been refused on every run ("--format combined reads none of
    the 1 lines", exit 3, nothing committed), again once the file was compressed (a probe ran
    logrotate's copytruncate and create modes). A plain rotated file is read to its last
    complete line (its logger may still finish the line: ``late``); a compressed one, which
    cannot grow, to its end, its rest counted as malformed with a warning."""
    log, state = tmp_path / "access.log", tmp_path / "s.sqlite"
    whole = _lines(10, 500)
    log.write_bytes(whole + whole[:60])  # ten lines, and the first 60 bytes of another
    status = ("--json", "-q", "status")  # every line parsed (a 5xx question: its candidates)
    assert window_counts(cron(state, *status, log=log))[1] == 10
    logrotate(log, variant, tmp_path)
    append(log, whole[60:100] + b"\n" + _lines(4, 200))  # a fragment where the writer went on
    proc = cron(state, *status, log=log)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    compressed = "delaycompress" not in variant  # the old file is a .gz at once
    warned = data["incremental"]["files"][0]["warnings"]
    assert any("counted as malformed" in w for w in warned) == compressed, warned
    # the fragment in the new file; and the rest in the old one once it is final
    assert data["progress"]["malformed_lines"] == 1 + compressed
    logrotate(log, variant, tmp_path)  # compressed now, or rotated again: still nothing stuck
    append(log, _lines(3, 500))
    again = cron(state, *status, log=log)
    assert again.returncode == 0, again.stderr
    counts, lines = window_counts(again)
    assert counts == {"500": 13, "200": 4} and lines == 10 + 1 + compressed + 4 + 3


def _rotated_once(tmp_path: Path, first: bytes) -> tuple[Path, Path, Path]:
    """``access.log`` of ``first``, counted by a run, then rotated by logrotate's ``create`` +
    ``delaycompress``: the log, the state and the rotated file."""
    log, state = tmp_path / "access.log", tmp_path / "s.sqlite"
    log.write_bytes(first)
    assert window_counts(cron(state, "--json", "-q", "status", log=log))[1] == first.count(b"\n")
    logrotate(log, "create-delaycompress", tmp_path)
    return log, state, tmp_path / "access.log.1"


@needs_logrotate
def test_lines_the_logger_still_writes_to_its_rotated_file_are_read(tmp_path: Path) -> None:
    """logrotate's ``create`` + ``delaycompress`` (Apache's graceful restart): the logger goes
    on writing to the rotated file for a while after the run that finished it. Those lines are
    read by the next run, from the rotated file or, once it is compressed, from the ``.gz``;
    they had been lost, the run "exact"."""
    log, state, rotated = _rotated_once(tmp_path, _lines(10, 500))
    status = ("--json", "-q", "status")
    append(rotated, _lines(2, 502))  # the old file, still open in the logger
    assert window_counts(cron(state, *status, log=log))[1] == 12
    append(rotated, _lines(3, 503))  # after the run that finished it
    append(log, _lines(4, 200))
    proc = cron(state, *status, log=log)
    counts, lines = window_counts(proc)
    assert lines == 19 and counts == {"500": 10, "502": 2, "503": 3, "200": 4}
    roles = [
        s["role"] for f in json.loads(proc.stdout)["incremental"]["files"] for s in f["slices"]
    ]
    assert "late" in roles
    append(rotated, _lines(1, 504))  # written, then compressed, between two runs
    logrotate(log, "create-delaycompress", tmp_path)
    append(log, _lines(1, 200))
    counts, lines = window_counts(cron(state, *status, log=log))
    assert lines == 21 and counts == {"500": 10, "502": 2, "503": 3, "504": 1, "200": 5}
    assert window_counts(cron(state, *status, log=log))[1] == 21  # nothing twice


def test_a_malformed_5xx_candidate_alone_is_no_refusal(tmp_path: Path) -> None:
    """The default question parses only 5xx candidates: a slice whose one candidate is a
    malformed fragment (a line cut by a rotation) among lines the format reads is counted,
    the fragment malformed; it had been refused ("none of the 1 lines parsed is a record of
    combined", exit 3) on every run until a 5xx came."""
    log, state = tmp_path / "access.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(5, 500))
    assert window_counts(cron(state, "--json", log=log))[1] == 5
    append(log, b'-08:00] "GET /r/1 HTTP/1.1" 500 12\n' + _lines(4, 200))
    proc = cron(state, "--json", log=log)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["progress"]["malformed_lines"] == 1
    assert {e["key"]: e["count"] for e in data["answer"]["top"]} == {"/r/{id}": 5}


def test_no_question_on_an_app_log_stays_top_errors_and_is_refused(tmp_path: Path) -> None:
    """A job's default question is top-errors even on an app log (its state and alerts are of
    the kind it pins): a usage error naming the question that fits, nothing committed; asked
    by name, the app question runs."""
    log = tmp_path / "app.log"
    shutil.copy(Path(__file__).parents[2] / "sample_logs" / "app_log4j.log", log)
    state = tmp_path / "state.db"
    refused = cron(state, "--json", log=log)
    assert refused.returncode == 2, refused.stdout
    assert "top-error-components" in refused.stderr and "Traceback" not in refused.stderr
    asked = cron(state, "--json", "-q", "top-error-components", log=log)
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout)["question"]["kind"] == "top-error-components"


def test_a_status_distribution_of_an_app_log_is_of_levels_as_analyze_gives_it(
    tmp_path: Path,
) -> None:
    """cron -q status on an application log answers its levels, as analyze does; it had
    shown them as HTTP statuses ("status 200 is the most common", "5xx 9.9 %": a probe's
    journalctl export)."""
    log = tmp_path / "app.log"
    shutil.copy(Path(__file__).parents[2] / "sample_logs" / "app_log4j.log", log)
    proc = cron(tmp_path / "s.sqlite", "--json", "-q", "status", "-k", "10", log=log)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)["answer"]
    args = ["analyze", str(log), "--json", "-q", "status", "--full", "-k", "10", "--llm", "off"]
    one = subprocess.run(
        [sys.executable, "-m", "logagent", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    want = json.loads(one.stdout)["answer"]
    assert {e["key"]: e["count"] for e in got["top"]} == {e["key"]: e["count"] for e in want["top"]}
    assert {e["key"] for e in got["top"]} <= {"FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"}
    assert got["classes"] == {} and got["metric"] == want["metric"]


def test_outputs_are_checked_before_a_run_commits_and_its_result_is_never_lost(
    tmp_path: Path,
) -> None:
    """--out and --history are written after the run commits its counts: a path that can
    never be written (a missing folder), or that is the watched log or the state, is refused
    before anything is read (exit 2, nothing committed: the next run counts the same lines);
    an --out that fails when written (a full device) prints the result instead."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(6, 500))
    before = log.read_bytes()
    for args in (
        ["--out", str(log)],
        ["--history", str(log)],
        ["--history", str(state)],
        ["--history", str(tmp_path / "no" / "h.jsonl")],
        ["--out", str(tmp_path / "no" / "r.json")],
        ["--out", str(tmp_path / "same"), "--history", str(tmp_path / "same")],  # report over it
        ["--out", str(tmp_path / "same"), "--history", str(tmp_path / "." / "same")],
    ):
        proc = cron(state, "--json", *args, log=log)
        assert proc.returncode == 2 and proc.stdout == "", (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert log.read_bytes() == before
    history, out = tmp_path / "h.jsonl", tmp_path / "r.json"
    proc = cron(state, "--json", "--history", str(history), "--out", str(out), log=log)
    assert proc.returncode == 0 and proc.stdout == ""
    assert json.loads(out.read_text())["progress"]["lines_read"] == 6  # nothing counted before
    assert len(history.read_text().splitlines()) == 1
    append(log, _lines(2, 503))
    full = cron(state, "--json", "--out", "/dev/full", log=log)
    assert full.returncode == 2 and "printed instead" in full.stderr
    assert json.loads(full.stdout)["progress"]["lines_read"] == 8  # committed, and shown


def test_a_file_named_twice_or_linked_is_counted_once(tmp_path: Path) -> None:
    """The same file named twice, by ``./``, a symlink or a hard link: followed once, with a
    warning for each other name (every name had been counted: 2x, "exact")."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(7, 500))
    (tmp_path / "link.log").symlink_to(log)
    os.link(log, tmp_path / "hard.log")
    names = [str(log), str(log), str(tmp_path / "." / "a.log")]
    names += [str(tmp_path / "link.log"), str(tmp_path / "hard.log")]
    proc = cron(state, "--json", logs=names)
    counts, n = window_counts(proc)
    assert n == 7 and sum(counts.values()) == 7
    notes = [w for w in json.loads(proc.stdout)["warnings"] if "followed once" in w]
    assert len(notes) == 4
    # the names as given are the job: a name that stops being the same file is read then,
    # in the same state (the job's paths had changed: exit 2 until --reset)
    (tmp_path / "hard.log").unlink()
    (tmp_path / "hard.log").write_bytes(_lines(2, 503))
    counts, n = window_counts(cron(state, "--json", logs=names))
    assert n == 9 and sum(counts.values()) == 9


@pytest.mark.parametrize("newest_first", [True, False])
def test_a_file_moved_from_one_watched_path_to_another_is_counted_once(
    tmp_path: Path, newest_first: bool
) -> None:
    """Both ``a.log`` and ``a.log.1`` watched, then a rename rotation: the file now at
    ``a.log.1`` was followed as ``a.log``, and goes on from there; its last lines are
    counted once though both paths reach it (it was read again from its start: 2x), in
    either order of the paths."""
    log, older, state = tmp_path / "a.log", tmp_path / "a.log.1", tmp_path / "s.sqlite"
    log.write_bytes(_lines(10, 500))
    older.write_bytes(_lines(6, 502))
    paths = [str(log), str(older)] if newest_first else [str(older), str(log)]

    def both() -> subprocess.CompletedProcess[str]:
        return cron(state, "--json", logs=paths)

    assert window_counts(both())[1] == 16
    append(log, _lines(3, 503))  # after the run, before the rotation
    older.rename(tmp_path / "a.log.2")
    log.rename(older)
    log.write_bytes(_lines(4, 504))
    counts, n = window_counts(both())
    assert n == 23 and sum(counts.values()) == 23  # 10 + 6 + 3 + 4, none twice
    append(log, _lines(2, 500))
    assert window_counts(both())[1] == 25


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--bucket", "off", "--window", "24h"], "--bucket off keeps no record times"),
        (["--bucket", "400d", "--window", "24h"], "shorter than one bucket (34,560,000 s)"),
        (["--window", "30m"], "shorter than one bucket (3,600 s)"),  # cron's default 1h
    ],
)
def test_a_window_that_buckets_cannot_cut_is_said(
    tmp_path: Path, args: list[str], says: str
) -> None:
    """A window is whole buckets of the records' own times: with --bucket off every record
    counts at its run's time (the warning had blamed the format), and a window under one
    bucket is that bucket (--window 24h --bucket 400d answered over 400 days, silently).
    Both are said; neither stops a job (--window 15m with 1 h buckets is a common check)."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    log.write_bytes(_lines(5, 500))
    proc = cron(state, "--json", *args, log=log)
    assert window_counts(proc)[1] == 5
    warnings = json.loads(proc.stdout)["warnings"]
    assert any(says in w for w in warnings), warnings
    assert not any("the format has no timestamp" in w for w in warnings)


def test_a_file_that_comes_back_to_its_path_is_said_to_be_counted_twice(tmp_path: Path) -> None:
    """A symlink switched back to a file read before: the state keeps no offset for it, so
    it is read again from its start, and the result says its lines count twice, and is
    partial (it said nothing, "exact"). Offsets per known file would need a new state schema
    (left)."""
    a, b, link, state = tmp_path / "A.log", tmp_path / "B.log", tmp_path / "cur", tmp_path / "s"
    a.write_bytes(_lines(5, 500))
    b.write_bytes(_lines(3, 502))
    for target, twice in ((a, False), (b, False), (a, True)):
        link.unlink(missing_ok=True)
        link.symlink_to(target)
        proc = cron(state, "--json", log=link)
        data = json.loads(proc.stdout)
        said = [w for w in data["warnings"] if "counted twice" in w]
        assert bool(said) == twice, proc.stdout
        # lines counted twice: the answer is not exact (exit 4, the report says why)
        status = (4, "partial") if twice else (0, "exact")
        assert (proc.returncode, data["status"]) == status, proc.stdout
        assert ("hold some lines twice" in data["report"]["markdown"]) == twice
    # --status names the run that counted lines twice, and why (it had not: only the runs'
    # count and the last run)
    status = json.loads(cron(state, "--status", "--json").stdout)
    doubled = status["runs_counted_twice"]
    assert [run["id"] for run in doubled] == [3], doubled
    assert any("counted twice" in w for w in doubled[0]["warnings"])
    assert doubled[0]["records_from"] == doubled[0]["records_to"] == "2026-11-28T13:00:00Z"
    text = cron(state, "--status").stdout
    assert "run #3 at " in text and "counted lines twice" in text, text


def test_a_window_is_partial_while_a_run_that_counted_lines_twice_is_in_it(
    tmp_path: Path,
) -> None:
    """The run that read a known file again holds lines counted twice: every window that
    merges it is partial (exit 4); once it is older than the window, the answer is exact."""
    a, b, link, state = tmp_path / "A.log", tmp_path / "B.log", tmp_path / "cur", tmp_path / "s"
    a.write_bytes(_at(_lines(5, 500), "01/Jan/2026:00:05:00"))
    b.write_bytes(_at(_lines(3, 502), "01/Jan/2026:00:15:00"))
    runs = ((a, "00:10"), (b, "00:20"), (a, "00:30"), (a, "00:50"), (a, "02:40"))
    got = []
    for target, at in runs:
        if at == "02:40":  # lines stamped in the last window, so that it has records
            append(a, _at(_lines(2, 500, start=5), "01/Jan/2026:02:30:00"))
        if link.is_symlink() and link.resolve() != target:
            link.unlink()
        if not link.is_symlink():
            link.symlink_to(target)
        proc = cron(state, "--json", "--window", "1h", "--now", f"2026-01-01T{at}:00", log=link)
        got.append((proc.returncode, json.loads(proc.stdout)["status"]))
    # 00:30 read A again; 00:50 merges that run; at 02:40 the window (02:00-03:00) does not
    assert got == [(0, "exact"), (0, "exact"), (4, "partial"), (4, "partial"), (0, "exact")]


def test_doubled_records_stamped_after_their_run_keep_their_window_partial(
    tmp_path: Path,
) -> None:
    """The window holds records by their own time: lines stamped after the run that read them
    twice (clock skew, local stamps read as UTC) keep every window that holds them partial,
    though that run is older than the window (a review found them counted twice, "exact").
    Nagios says WARNING for a partial window, not OK."""
    a, b, link, state = tmp_path / "A.log", tmp_path / "B.log", tmp_path / "cur", tmp_path / "s"
    a.write_bytes(_at(_lines(5, 500), "01/Jan/2026:02:05:00"))
    b.write_bytes(_at(_lines(3, 502), "01/Jan/2026:02:15:00"))
    got = []
    for target, at in ((a, "00:10"), (b, "00:20"), (a, "00:30"), (a, "02:40")):
        if link.is_symlink():
            link.unlink()
        link.symlink_to(target)
        proc = cron(state, "--json", "--window", "1h", "--now", f"2026-01-01T{at}:00", log=link)
        data = json.loads(proc.stdout)
        got.append((proc.returncode, data["status"], data["answer"]["total"]))
    # the window 02:00-03:00 at 02:40 holds A's lines twice (made at 00:30): 13 of 8 lines
    # the first windows (00:00-01:00) hold none of these records: nothing to answer
    assert got == [(0, "recused", 0)] * 3 + [(4, "partial", 13)]
    nag = cron(state, "--window", "1h", "--now", "2026-01-01T02:45:00", "--exit-codes", "nagios",
               log=link)  # fmt: skip
    assert nag.returncode == 1 and "partial" in nag.stdout, nag.stdout


def test_a_banner_line_alone_does_not_make_a_new_file_one_read_before(tmp_path: Path) -> None:
    """A log whose files all begin with the same short banner line: a new file at the path
    matches the known head of one read when it held only that line. Said in a warning
    ("if it is that file"), but no partial answer: a line or two is no proof (a review)."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    banner = b"INFO:root:Starting server on port 8080\n"
    log.write_bytes(banner + b"ERROR:db:connection refused\n" * 3)
    ask = ("--json", "-q", "top-error-components")
    assert cron(state, *ask, log=log).returncode == 0
    os.rename(log, tmp_path / "a.log.1")
    log.write_bytes(banner)  # rotated, the service restarted and wrote its first line
    assert cron(state, *ask, log=log).returncode == 0
    with open(log, "ab") as f:
        f.write(b"ERROR:db:connection refused\n" * 2)
    os.rename(tmp_path / "a.log.1", tmp_path / "a.log.2")
    os.rename(log, tmp_path / "a.log.1")
    log.write_bytes(banner + b"ERROR:db:timeout\n")  # rotated again: a new file, alike
    proc = cron(state, *ask, log=log)
    data = json.loads(proc.stdout)
    assert (proc.returncode, data["status"]) == (0, "exact"), proc.stdout
    said = [w for w in data["warnings"] if "counted twice" in w]
    assert said and "if it is that file" in said[0]


@pytest.mark.parametrize("copy", ["copytruncate", "gzip"])
def test_a_copy_of_a_watched_file_at_another_watched_path_is_counted_once(
    tmp_path: Path, copy: str
) -> None:
    """``a.log.1`` (or ``a.log.1.gz``) watched before ``a.log``, and a rotation that copies
    ``a.log`` there (a new inode: copytruncate, or rename then gzip): the copy starts where
    ``a.log`` was read to, found by its content (it was read from its start: 33 for 23)."""
    log, state = tmp_path / "a.log", tmp_path / "s.sqlite"
    older = tmp_path / ("a.log.1" if copy == "copytruncate" else "a.log.1.gz")
    log.write_bytes(_lines(10, 500))
    older.write_bytes(_lines(6, 502) if copy == "copytruncate" else gzip.compress(_lines(6, 502)))

    def both() -> subprocess.CompletedProcess[str]:
        return cron(state, "--json", logs=[str(older), str(log)])

    assert window_counts(both())[1] == 16
    append(log, _lines(3, 503))
    older.rename(tmp_path / f"{older.name}.old")
    if copy == "copytruncate":
        older.write_bytes(log.read_bytes())
        log.write_bytes(b"")
    else:
        older.write_bytes(gzip.compress(log.read_bytes()))
        log.unlink()
    append(log, _lines(4, 504))
    counts, n = window_counts(both())
    assert n == 23 and sum(counts.values()) == 23  # 10 + 6 + 3 + 4, none twice


@needs_logrotate
def test_a_line_the_logger_finishes_in_its_rotated_file_is_one_record(tmp_path: Path) -> None:
    """The logger was half way through a line when the file was rotated (``create`` +
    ``delaycompress``) and finishes it there: one record, not two malformed fragments (a
    review found the 500 lost and 6 lines counted as 7: the rotated file had been read to its
    very end)."""
    log, state, rotated = _rotated_once(tmp_path, _lines(3, 200))
    status = ("--json", "-q", "status")
    line = _lines(1, 500)
    append(rotated, _lines(2, 200) + line[:30])  # still open in the logger: half a line
    assert window_counts(cron(state, *status, log=log))[1] == 5
    append(rotated, line[30:])
    proc = cron(state, *status, log=log)
    counts, lines = window_counts(proc)
    assert counts == {"200": 5, "500": 1} and lines == 6
    assert json.loads(proc.stdout)["progress"]["malformed_lines"] == 0
