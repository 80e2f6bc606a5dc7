"""`logagent serve` as a real server process on 127.0.0.1, driven by a real HTTP client."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import zstandard

KEY = "test-key-0123456789"
AUTH = {"Authorization": f"Bearer {KEY}"}
SEED = "7"
# Many batches, each checkpointed: a job long enough to be killed mid-way. Random order: a
# read of everything in file order is prescanned in a few large batches (~0.1 s for 12 MB).
SLOW_CONFIG = '[reader]\nbatch_bytes = "256KiB"\norder = "random"\n[checkpoint]\nevery = 1\n'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """One `logagent serve` subprocess."""

    def __init__(
        self, data_dir: Path, *args: str, keys: Path | None = None, ignore_hup: bool = False
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "logagent", "serve", "--port", str(self.port)]
        cmd += ["--data-dir", str(data_dir), *args]
        if keys is not None:
            cmd += ["--api-key-file", str(keys)]
        self.stderr = data_dir.parent / f"serve-{self.port}.err"

        def hup() -> None:  # nohup's start: SIGHUP ignored, or a terminal's: its default
            signal.signal(signal.SIGHUP, signal.SIG_IGN if ignore_hup else signal.SIG_DFL)

        with open(self.stderr, "wb") as err:
            self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, preexec_fn=hup)
        self._wait_healthy()

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.stderr.read_text()
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        raise AssertionError("the server did not start")

    def rss_bytes(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(60)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A 12 MB generated log, with its truth sidecar."""
    d = tmp_path_factory.mktemp("logs")
    out = {}
    for name, size in (("small", "12"),):
        path = d / f"{name}.log"
        subprocess.run(
            [
                *(sys.executable, "-m", "logagent.samples", "--scenario", "dominant"),
                *("--size-mb", size, "--seed", "3", "-o", str(path)),
            ],
            check=True,
            capture_output=True,
        )
        out[name] = path
    return out


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    path = tmp_path / "keys"
    path.write_text(f"# test\n{KEY}\n")
    return path


@pytest.fixture
def server(tmp_path: Path, keys: Path) -> Iterator[Server]:
    s = Server(tmp_path / "data", "--memory-budget", "1GiB", "--max-upload", "64MiB", keys=keys)
    yield s
    s.stop()


def cli_result(path: Path, *flags: str) -> dict[str, Any]:
    """`logagent analyze --json` on the same file and seed."""
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "logagent", "analyze", str(path), "--json", "--quiet"),
            *("--seed", SEED, "--llm", "off", "--memory-budget", "1GiB", *flags),
        ],
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def same_answer(service: dict[str, Any], cli: dict[str, Any]) -> None:
    """The service's result is the CLI's (the input's name aside)."""
    assert service["status"] == cli["status"]
    assert service["answer"] == cli["answer"]
    for key in ("units_read", "units_total", "bytes_read", "lines_read"):
        assert service["progress"][key] == cli["progress"][key]


def wait_done(url: str, job_id: str, timeout_s: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        job: dict[str, Any] = httpx.get(f"{url}/v1/analyses/{job_id}", headers=AUTH).json()
        if job["status"] in ("done", "failed", "cancelled"):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.2)


def sse(lines: Iterator[str]) -> list[tuple[str, Any]]:
    """(event, data) pairs of a Server-Sent Events stream."""
    events, name = [], ""
    for line in lines:
        if line.startswith("event: "):
            name = line[len("event: ") :]
        elif line.startswith("data: "):
            events.append((name, json.loads(line[len("data: ") :])))
    return events


def uploads_left(data_dir: Path) -> list[str]:
    return os.listdir(data_dir / "uploads")


def test_raw_gzip_zstd_multipart_give_the_cli_result(server: Server, logs: dict[str, Path]) -> None:
    """Every way to upload the log gives `logagent analyze`'s result on the same seed."""
    path = logs["small"]
    data = path.read_bytes()
    cli = cli_result(path)
    url = f"{server.url}/v1/analyses?seed={SEED}&wait=120"
    bodies: list[dict[str, Any]] = [
        {"content": data},
        {"content": gzip.compress(data, 1), "headers": {"Content-Encoding": "gzip"}},
        {"content": zstandard.ZstdCompressor().compress(data)},
        {"files": {"file": ("a.log", data)}},
    ]
    with httpx.Client(headers=AUTH, timeout=180) as client:
        for body in bodies:
            headers = {**AUTH, **body.pop("headers", {})}
            r = client.post(url, headers=headers, **body)
            assert r.status_code == 200, r.text
            job = r.json()
            assert job["status"] == "done" and job["status_url"].endswith(job["id"])
            same_answer(job["result"], cli)
            shown = "a.log" if "files" in body else f"upload:{job['id']}"
            assert job["result"]["input"]["paths"] == [shown]
            assert str(server.stderr.parent / "data") not in json.dumps(job)
        assert client.get(job["status_url"]).json()["result"] == job["result"]
        md = client.get(f"{job['status_url']}/report")
        assert md.headers["content-type"].startswith("text/markdown")
        assert cli["answer"]["top"][0]["key"] in md.text
        html = client.get(f"{job['status_url']}/report", headers={"Accept": "text/html"})
        assert html.headers["content-type"].startswith("text/html") and "<html" in html.text
        events = client.get(f"{job['status_url']}/events").text
        assert "event: decision" in events and "event: status" in events
    assert uploads_left(Path(server.stderr.parent / "data")) == []


def test_a_truncated_gzip_log_is_answered_partial_as_the_cli_answers_it(
    server: Server, logs: dict[str, Path], tmp_path: Path
) -> None:
    """A ``.gz`` log cut short is decoded up to the cut and answered *partial*
    (``input_damaged``), with the counts ``logagent analyze`` gives of the same cut file (exit
    4); it had been a 400 and nothing analyzed. A body whose Content-Encoding is cut stays 400.
    """
    packed = gzip.compress(logs["small"].read_bytes(), 6)
    cut = packed[: len(packed) * 2 // 3]
    gz = tmp_path / "cut.log.gz"
    gz.write_bytes(cut)
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "logagent", "analyze", str(gz), "--json", "--quiet"),
            *("--seed", SEED, "--llm", "off", "--memory-budget", "1GiB", "--full"),
        ],
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 4, proc.stderr.decode()
    cli = json.loads(proc.stdout)
    url = f"{server.url}/v1/analyses?seed={SEED}&wait=120&full=true"
    with httpx.Client(headers=AUTH, timeout=180) as client:
        r = client.post(url, content=cut)
        assert r.status_code == 200, r.text
        result = r.json()["result"]
        assert result["status"] == "partial" == cli["status"]
        assert result["answer"]["top"] == cli["answer"]["top"]
        assert result["progress"]["lines_read"] == cli["progress"]["lines_read"]
        stops = [d for d in result["decisions"] if d["action"] == "STOP_PARTIAL"]
        assert stops[-1]["reason"] == "input_damaged" and "truncated" in stops[-1]["detail"]
        assert "ended early" in result["report"]["markdown"]
        cut_body = gzip.compress(logs["small"].read_bytes(), 1)
        r = client.post(
            url, content=cut_body[: len(cut_body) // 2], headers={"Content-Encoding": "gzip"}
        )
        assert r.status_code == 400 and "truncated" in r.text
    assert uploads_left(Path(server.stderr.parent / "data")) == []


def test_by_and_where_give_the_cli_result(server: Server, logs: dict[str, Path]) -> None:
    """by= and where= (repeatable) ask what --by/--where ask of the CLI."""
    path = logs["small"]
    flags = ("--by", "client", "--where", "status>=400", "--where", "method=GET")
    cli = cli_result(path, *flags)
    query = f"seed={SEED}&wait=120&by=client&where=status%3E%3D400&where=method%3DGET"
    r = httpx.post(
        f"{server.url}/v1/analyses?{query}", headers=AUTH, content=path.read_bytes(), timeout=180
    )
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert result["question"]["kind"] == "top" and result["question"]["by"] == "client"
    assert result["question"]["where"] == ["status>=400", "method=GET"]
    same_answer(result, cli)


def test_a_partial_answer_points_to_no_checkpoint_of_the_service(
    server: Server, logs: dict[str, Path], tmp_path: Path
) -> None:
    """A job stopped by its budget is partial; its result does not say "`logagent resume
    DATA/checkpoints/ID.ckpt` goes on from here": the service removes that checkpoint when
    the job ends, and its data directory is no client's business (a review)."""
    query = f"seed={SEED}&wait=120&full=true&max_fraction=0.2"
    r = httpx.post(
        f"{server.url}/v1/analyses?{query}",
        headers=AUTH,
        content=logs["small"].read_bytes(),
        timeout=180,
    )
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert result["status"] == "partial", result["warnings"]
    assert not any("logagent resume" in w for w in result["warnings"]), result["warnings"]
    assert str(tmp_path / "data") not in r.text


def test_no_question_on_an_app_log_is_answered_as_the_cli_answers_it(
    server: Server, tmp_path: Path
) -> None:
    """An upload of an app log with no question gets top-error-components, as the CLI does."""
    path = Path(__file__).parents[2] / "sample_logs" / "app_log4j.log"
    cli = cli_result(path)
    r = httpx.post(
        f"{server.url}/v1/analyses?seed={SEED}&wait=120",
        headers=AUTH,
        content=path.read_bytes(),
        timeout=180,
    )
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert result["question"]["kind"] == "top-error-components"
    assert result["question"]["default_kind"] and result["answer"]["top"]
    same_answer(result, cli)


def test_without_wait_202_then_status_and_sse_progress(
    server: Server, logs: dict[str, Path]
) -> None:
    """No ?wait: 202 with a status URL; the events stream ends with the final status."""
    with httpx.Client(headers=AUTH, timeout=180) as client:
        r = client.post(f"{server.url}/v1/analyses?seed={SEED}", content=logs["small"].read_bytes())
        assert r.status_code == 202
        job = r.json()
        with client.stream("GET", f"{job['status_url']}/events") as stream:
            events = sse(stream.iter_lines())
        done = wait_done(server.url, job["id"])
        assert done["status"] == "done"
        kinds = [name for name, _ in events]
        assert "progress" in kinds and kinds[-1] == "status" and events[-1][1]["status"] == "done"
        decisions = [data for name, data in events if name == "decision"]
        assert decisions == done["result"]["decisions"]  # each once, in order
        metrics = client.get(f"{server.url}/metrics").text
        assert 'logagent_jobs{state="done"} 1.0' in metrics
        assert "logagent_uploaded_bytes_total" in metrics and "logagent_decisions_total" in metrics


def test_auth_errors_and_limits(server: Server, tmp_path: Path) -> None:
    """401 without or with a wrong key (no detail); 422 names the field; 413 over the limit."""
    url = f"{server.url}/v1/analyses"
    assert httpx.get(f"{server.url}/healthz").status_code == 200
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}):
        r = httpx.post(url, headers=headers, content=b"x\n")
        assert r.status_code == 401 and r.json() == {"detail": "unauthorized"}
        assert httpx.get(f"{url}/abc", headers=headers).status_code == 401
    r = httpx.post(f"{url}?top=zero", headers=AUTH, content=b"x\n")
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", "top"]
    r = httpx.post(f"{url}?by=route&by=client", headers=AUTH, content=b"x\n")
    assert r.status_code == 422 and r.json()["detail"][0]["msg"] == "given more than once"
    assert httpx.get(f"{url}/nope", headers=AUTH).status_code == 404

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit is found while streaming
        for _ in range(100):
            yield b"y" * (1 << 20)

    r = httpx.post(url, headers=AUTH, content=chunks(), timeout=60)
    assert r.status_code == 413
    big = httpx.post(url, headers=AUTH, content=b"z" * (65 << 20), timeout=60)
    assert big.status_code == 413
    assert uploads_left(tmp_path / "data") == []


MALFORMED = [
    ("question=most-errors", "question"),
    ("format=no-such-format", "format"),
    ("since=yesterday", "since"),
    ("since=1h&until=2h", "since"),  # since after until
    ("until=2026-13-40", "until"),
    ("top=0", "top"),
    ("delta=2", "delta"),
    ("full=perhaps", "full"),
    ("colour=red", "colour"),
    ("where=status~(", "where"),  # not a regular expression
    ("by=client&question=status", "by"),  # a status distribution ranks no field
    ("question=top", "by"),  # top needs --by
]


def _post_head_only(port: int, query: str) -> bytes:
    """POST announcing 50 MB but sending 1 kB of it; the reply as it arrives."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        head = (
            f"POST /v1/analyses?{query} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
            "Content-Length: 50000000\r\n\r\n"
        )
        s.sendall(head.encode() + b"a" * 1000)
        s.settimeout(30)
        reply = b""
        while not reply.rstrip().endswith(b"}"):
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
    return reply


def test_malformed_query_is_422_before_the_body_is_read(server: Server, tmp_path: Path) -> None:
    """A 422 naming the field arrives while the body is still unsent; nothing is stored."""
    for query, field in MALFORMED:
        reply = _post_head_only(server.port, query)
        status, _, rest = reply.partition(b"\r\n")
        assert b" 422 " in status, (query, reply)
        detail = json.loads(rest.partition(b"\r\n\r\n")[2])["detail"]
        assert [d["loc"] for d in detail] == [["query", field]], (query, detail)
    assert uploads_left(tmp_path / "data") == []
    metrics = httpx.get(f"{server.url}/metrics", headers=AUTH).text
    assert all(f'logagent_jobs{{state="{s}"}} 0.0' in metrics for s in ("queued", "running"))


def test_disconnect_mid_upload_leaves_nothing(server: Server, tmp_path: Path) -> None:
    """A client that goes away mid-body leaves no file and no job."""
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        head = (
            f"POST /v1/analyses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
            "Content-Length: 20000000\r\n\r\n"
        )
        s.sendall(head.encode() + b"a" * 3_000_000)
        deadline = time.monotonic() + 30
        while not uploads_left(tmp_path / "data") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert uploads_left(tmp_path / "data")  # the upload was being written
    deadline = time.monotonic() + 30
    while uploads_left(tmp_path / "data"):
        assert time.monotonic() < deadline, "the partial upload was not removed"
        time.sleep(0.1)
    metrics = httpx.get(f"{server.url}/metrics", headers=AUTH).text
    assert all(f'logagent_jobs{{state="{s}"}} 0.0' in metrics for s in ("queued", "running"))


def test_path_jobs_only_under_allowed_roots(tmp_path: Path, logs: dict[str, Path]) -> None:
    """{"path"} under --allow-path-root runs; outside, via '..' or a symlink out: 403."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    os.symlink(logs["small"], outside / "a.log")
    (root / "in.log").symlink_to(logs["small"])  # a symlink to outside the root
    (root / "real.log").write_bytes(logs["small"].read_bytes())
    s = Server(tmp_path / "data", "--allow-path-root", str(root))  # no key: loopback only
    try:
        url = f"{s.url}/v1/analyses?seed={SEED}&wait=120"
        for bad in (outside / "a.log", root / "in.log", f"{root}/../outside/a.log"):
            assert httpx.post(url, json={"path": str(bad)}).status_code == 403
        r = httpx.post(url, json={"path": str(root / "real.log")}, timeout=180)
        assert r.status_code == 200 and r.json()["status"] == "done"
        assert r.json()["result"]["input"]["paths"] == [str(root / "real.log")]
        (root / "link.log").symlink_to(root / "real.log")  # inside the root: allowed
        r = httpx.post(url, json={"path": str(root / "link.log")}, timeout=180)
        assert r.status_code == 200, r.text
        assert r.json()["result"]["input"]["paths"] == [str(root / "link.log")]  # as given
        assert (root / "real.log").exists()  # the service never removes a file it did not store
        assert "no authentication" in s.stderr.read_text()
        # bodies that were a 500 (a traceback in the server log) or ran another question
        headers = {"Content-Type": "application/json"}
        deep = '{"path": ' + "[" * 5000 + "]" * 5000 + "}"
        for body in (
            json.dumps({"path": f"{root}/real\u0000.log"}),
            '{"path": "\\ud800"}',  # JSON text: a lone surrogate
            deep,
            json.dumps({"path": str(root / "real.log"), "question": "status", "top": 3}),
        ):
            r = httpx.post(url, content=body.encode(), headers=headers, timeout=60)
            assert r.status_code == 422, (body[:60], r.status_code, r.text)
        # a JSON log sent as application/json: told how to send a log, not "too large"
        log = logs["small"].read_bytes()[: 1 << 20]
        r = httpx.post(url, content=log, headers=headers, timeout=60)
        assert r.status_code == 413 and "application/octet-stream" in r.json()["detail"]
        r = httpx.post(url, content=b'{"ts": 1, "level": "error"}\n', headers=headers)
        assert r.status_code == 422 and "send a log itself" in r.text
        assert "Traceback" not in s.stderr.read_text()
    finally:
        s.stop()


def test_concurrent_uploads_share_one_budget(tmp_path: Path, logs: dict[str, Path]) -> None:
    """8 clients at once: 202 or 503 + Retry-After; admitted answer right; RSS <= 1.2 budget."""
    budget = 600 << 20
    s = Server(
        tmp_path / "data", "--memory-budget", str(budget), "--max-jobs", "2", "--max-queue", "2"
    )
    data = logs["small"].read_bytes()
    truth = json.loads(Path(f"{logs['small']}.truth.json").read_text())
    peak = [0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], s.rss_bytes())
            time.sleep(0.02)

    answers: list[httpx.Response] = []

    def post() -> None:
        answers.append(httpx.post(f"{s.url}/v1/analyses?seed={SEED}", content=data, timeout=120))

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        clients = [threading.Thread(target=post) for _ in range(8)]
        for c in clients:
            c.start()
        for c in clients:
            c.join()
        admitted = [r.json()["id"] for r in answers if r.status_code == 202]
        for r in answers:
            assert r.status_code in (202, 503), r.text
            if r.status_code == 503:
                assert int(r.headers["Retry-After"]) > 0
        assert admitted
        top = truth["top_errors"][0][0]
        for job_id in admitted:
            job = wait_done(s.url, job_id)
            assert job["status"] == "done", job
            assert job["result"]["status"] in ("settled", "exact")
            assert job["result"]["answer"]["top"][0]["key"] == top
    finally:
        stop.set()
        sampler.join()
        s.stop()
    assert peak[0] <= 1.2 * budget, f"peak RSS {peak[0] >> 20} MiB over 1.2 x {budget >> 20} MiB"


def _checkpointed_job(s: Server, data: bytes, data_dir: Path) -> str:
    r = httpx.post(f"{s.url}/v1/analyses?seed={SEED}&full=true", content=data, timeout=120)
    assert r.status_code == 202
    job_id: str = r.json()["id"]
    deadline = time.monotonic() + 60
    while not os.listdir(data_dir / "checkpoints"):  # running, with a checkpoint written
        job = httpx.get(f"{s.url}/v1/analyses/{job_id}").json()
        assert job["status"] in ("queued", "running") and time.monotonic() < deadline, job
        time.sleep(0.02)
    return job_id


def _restarted_to_the_full_answer(
    data: Path, args: tuple[str, ...], job_id: str, log: Path, how: str
) -> None:
    """A server started again on ``data`` carries the killed job over (``how``: from its
    checkpoint, or from the beginning) to the uninterrupted answer, its upload removed."""
    s2 = Server(data, *args)
    try:
        job = wait_done(s2.url, job_id)
    finally:
        s2.stop()
    assert job["status"] == "done", job
    assert job["trace"][-1]["reason"] == "restart" and how in job["trace"][-1]["detail"]
    same_answer(job["result"], cli_result(log, "--full"))
    assert uploads_left(data) == []


def test_restart_after_sigkill_keeps_every_job(tmp_path: Path, logs: dict[str, Path]) -> None:
    """SIGKILL mid-job: at restart the job resumes from its last checkpoint.

    (SIGTERM's drain: ``test_service_scale``.) Before the kill, DELETE of a
    running job gives its partial answer and removes its upload.
    """
    config = tmp_path / "slow.toml"
    config.write_text(SLOW_CONFIG)
    args = ("--config", str(config), "--grace", "20")
    s = Server(tmp_path / "data", *args)
    job_id = _checkpointed_job(s, logs["small"].read_bytes(), tmp_path / "data")
    other = httpx.post(f"{s.url}/v1/analyses?full=true", content=logs["small"].read_bytes())
    gone = httpx.delete(f"{s.url}/v1/analyses/{other.json()['id']}", timeout=60).json()
    assert gone["status"] == "cancelled", gone
    assert gone["result"] is None or gone["result"]["status"] == "partial"
    assert len(uploads_left(tmp_path / "data")) == 1  # only the first job's
    assert s.stop(signal.SIGKILL) == -signal.SIGKILL
    # what a server killed while it received an upload leaves: a file no job holds, removed
    # at the next start (it had stayed for good; a review)
    (tmp_path / "data" / "uploads" / "0a1b2c.log").write_bytes(b"half an upload\n" * 1000)
    (tmp_path / "data" / "checkpoints" / "0a1b2c.ckpt").write_bytes(b"LGACKPT\n")
    _restarted_to_the_full_answer(tmp_path / "data", args, job_id, logs["small"], "checkpoint")
    assert os.listdir(tmp_path / "data" / "checkpoints") == []


def test_restart_after_sigkill_before_any_checkpoint_runs_the_job_again(
    tmp_path: Path, logs: dict[str, Path]
) -> None:
    """SIGKILL (the OOM killer, a power cut) while a job runs and no checkpoint exists yet:
    the accepted job is not lost — at restart it runs again from the beginning, from the
    upload kept for it, to the uninterrupted answer."""
    config = tmp_path / "slow.toml"
    config.write_text(
        '[reader]\nbatch_bytes = "64KiB"\norder = "random"\n[checkpoint]\nevery = 100000\n'
    )
    args = ("--config", str(config))
    s = Server(tmp_path / "data", *args)
    r = httpx.post(
        f"{s.url}/v1/analyses?full=true", content=logs["small"].read_bytes(), timeout=120
    )
    assert r.status_code == 202
    job_id = r.json()["id"]
    deadline = time.monotonic() + 60
    while httpx.get(f"{s.url}/v1/analyses/{job_id}").json()["status"] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    s.proc.send_signal(signal.SIGSTOP)  # frozen mid-read: the job cannot end before the kill
    assert not os.listdir(tmp_path / "data" / "checkpoints")
    assert s.stop(signal.SIGKILL) == -signal.SIGKILL
    assert len(uploads_left(tmp_path / "data")) == 1  # the accepted job's input is kept
    _restarted_to_the_full_answer(tmp_path / "data", args, job_id, logs["small"], "beginning")


def test_a_second_server_on_the_same_data_directory_is_refused(tmp_path: Path) -> None:
    """Two servers on one data directory would both run its jobs (the second's start would
    carry the first's running jobs over as if it had stopped): the second exits 2, saying
    which process holds it, and the first serves on."""
    s = Server(tmp_path / "data")
    try:
        cmd = [sys.executable, "-m", "logagent", "serve", "--port", str(free_port())]
        second = subprocess.run(
            [*cmd, "--data-dir", str(tmp_path / "data")],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 2, second.stderr
        assert f"another `logagent serve` (pid {s.proc.pid}) uses this data directory" in (
            second.stderr
        )
        assert "Traceback" not in second.stderr
        assert httpx.get(f"{s.url}/healthz").status_code == 200
    finally:
        assert s.stop() == 0
    again = Server(tmp_path / "data")  # the lock went with the first server
    again.stop()


@pytest.mark.parametrize("nohup", [False, True])
def test_a_hang_up_drains_the_server_unless_it_is_ignored(
    tmp_path: Path, logs: dict[str, Path], nohup: bool
) -> None:
    """SIGHUP (the terminal or ssh session that started `serve` closed) drains like SIGTERM:
    no new job, the running one finishes within --grace, the server exits 0; a hang-up's
    second SIGHUP is no second signal (that would checkpoint the job at once). Under nohup
    (SIGHUP ignored) it serves on."""
    config = tmp_path / "slow.toml"
    config.write_text(SLOW_CONFIG.replace('"256KiB"', '"64KiB"'))
    data = tmp_path / "data"
    s = Server(data, "--config", str(config), "--grace", "120", ignore_hup=nohup)
    try:
        job_id = _checkpointed_job(s, logs["small"].read_bytes(), data)
        s.proc.send_signal(signal.SIGHUP)
        time.sleep(0.2)
        s.proc.send_signal(signal.SIGHUP)
        if nohup:
            time.sleep(1.0)
            assert s.proc.poll() is None and httpx.get(f"{s.url}/healthz").status_code == 200
            return
        assert s.proc.wait(180) == 0, s.stderr.read_text()
    finally:
        s.stop()
    s2 = Server(data, "--config", str(config))
    try:
        job = httpx.get(f"{s2.url}/v1/analyses/{job_id}").json()
    finally:
        s2.stop()
    assert job["status"] == "done", job  # it finished within the grace: never checkpointed
    assert all(t["reason"] != "drained" for t in job["trace"]), job


def test_a_sigterm_during_an_upload_answers_503_and_keeps_nothing(
    tmp_path: Path, logs: dict[str, Path]
) -> None:
    """The server drains on SIGTERM while a body is coming in: the upload is answered 503 with
    Retry-After (send it again), its file is removed, and the server exits 0. A probe found
    a 500 "Internal Server Error" and a CancelledError traceback instead."""
    data = tmp_path / "data"
    s = Server(data, "--grace", "1")
    body = logs["small"].read_bytes()
    sent, killed = threading.Event(), threading.Event()

    def slow() -> Iterator[bytes]:
        for i in range(0, len(body), 1 << 16):
            if i == 4 << 16:
                sent.set()  # the test sends SIGTERM now, while the rest waits
                killed.wait(30)
                time.sleep(0.5)
            else:
                time.sleep(0.01)
            yield body[i : i + (1 << 16)]

    def uploaded() -> float:
        text = httpx.get(f"{s.url}/metrics", timeout=5).text
        found = re.search(r"^logagent_uploaded_bytes_total ([0-9.e+]+)$", text, re.M)
        return float(found.group(1)) if found else 0.0

    def kill() -> None:
        sent.wait(30)
        # only once the upload's body is being read: on a slow machine the handler had not
        # begun when the signal came, and the request was refused as a new one ("try again
        # later"), which is not what this test is about
        deadline = time.monotonic() + 30
        while uploaded() == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        s.proc.send_signal(signal.SIGTERM)
        killed.set()

    threading.Thread(target=kill, daemon=True).start()
    try:
        answer = httpx.post(f"{s.url}/v1/analyses", content=slow(), timeout=60)
        assert answer.status_code == 503, answer.text
        assert answer.headers.get("retry-after") and "send it again" in answer.json()["detail"]
    finally:
        code = s.stop()
    assert code == 0, s.stderr.read_text()
    assert "Traceback" not in s.stderr.read_text()
    assert not any((data / "uploads").iterdir())
