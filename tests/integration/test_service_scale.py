"""`logagent serve` at the issue's scale: 200 MB uploads, 16 concurrent 100 MB ones, drain.

Each log is generated once per test session (``python -m logagent.samples``)
and re-used; the 16 uploads all stream the same 100 MB file from disk.
"""

from __future__ import annotations

import gzip
import json
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_service import (
    AUTH,
    KEY,
    SEED,
    SLOW_CONFIG,
    Server,
    cli_result,
    same_answer,
    sse,
    uploads_left,
    wait_done,
)

pytestmark = pytest.mark.slow
MB = 1 << 20


def generate(d: Path, size_mb: int, seed: int) -> Path:
    """A generated `dominant` log of ``size_mb`` MB, with its truth sidecar."""
    path = d / f"dominant_{size_mb}mb.log"
    subprocess.run(
        [
            *(sys.executable, "-m", "logagent.samples", "--scenario", "dominant"),
            *("--size-mb", str(size_mb), "--seed", str(seed), "-o", str(path)),
        ],
        check=True,
        capture_output=True,
    )
    return path


@pytest.fixture(scope="session")
def log_200mb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 200 MB log of the acceptance test (once per session)."""
    return generate(tmp_path_factory.mktemp("scale"), 200, 5)


@pytest.fixture(scope="session")
def log_100mb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 100 MB log the 16 concurrent uploads and the drain's long job send."""
    return generate(tmp_path_factory.mktemp("scale"), 100, 6)


@pytest.fixture(scope="session")
def log_2mb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2 MB log: the drain's short job."""
    return generate(tmp_path_factory.mktemp("scale"), 2, 7)


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    path = tmp_path / "keys"
    path.write_text(f"{KEY}\n")
    return path


def truth_top(path: Path) -> tuple[str, int]:
    top = json.loads(Path(f"{path}.truth.json").read_text())["top_errors"][0]
    return str(top[0]), int(top[1])


def no_server_paths(job: dict[str, Any], data_dir: Path) -> None:
    """Nothing the client sees names the server's data directory."""
    assert str(data_dir) not in json.dumps(job)


def test_200mb_raw_gzip_multipart_uploads_equal_the_cli(
    tmp_path: Path, keys: Path, log_200mb: Path
) -> None:
    """200 MB raw, gzip and multipart: the CLI's result; ?wait answers 200; SSE has progress."""
    data_dir = tmp_path / "data"
    s = Server(data_dir, "--memory-budget", "1GiB", "--max-upload", "1GiB", keys=keys)
    gz = tmp_path / "upload.log.gz"
    with open(log_200mb, "rb") as src, gzip.open(gz, "wb", compresslevel=1) as dst:
        shutil.copyfileobj(src, dst, 4 * MB)
    cli = cli_result(log_200mb)
    url = f"{s.url}/v1/analyses?seed={SEED}"
    try:
        with httpx.Client(headers=AUTH, timeout=600) as client:
            with open(log_200mb, "rb") as f:  # raw, streamed from disk, with ?wait
                r = client.post(f"{url}&wait=300", content=f)
            assert r.status_code == 200, r.text
            raw = r.json()
            same_answer(raw["result"], cli)
            assert raw["result"]["input"]["paths"] == [f"upload:{raw['id']}"]
            headers = {**AUTH, "Content-Encoding": "gzip"}
            with open(gz, "rb") as f:
                r = client.post(f"{url}&wait=300", content=f, headers=headers)
            assert r.status_code == 200, r.text
            same_answer(r.json()["result"], cli)
            with open(log_200mb, "rb") as f:  # multipart, no ?wait: 202, then the events
                r = client.post(url, files={"file": ("access-200mb.log", f)})
            assert r.status_code == 202, r.text
            job = r.json()
            with client.stream("GET", f"{job['status_url']}/events") as stream:
                events = sse(stream.iter_lines())
            done = wait_done(s.url, job["id"])
        assert done["status"] == "done", done
        same_answer(done["result"], cli)
        assert done["result"]["input"]["paths"] == ["access-200mb.log"]
        progress = [data for name, data in events if name == "progress"]
        assert progress and all(0 < p["bytes_read"] <= p["bytes_total"] for p in progress)
        assert [p["bytes_read"] for p in progress] == sorted(p["bytes_read"] for p in progress)
        assert events[-1] == ("status", {"status": "done", "result_status": cli["status"]})
        for shown in (raw, done):
            no_server_paths(shown, data_dir)
    finally:
        s.stop()
    assert uploads_left(data_dir) == []


def test_16_concurrent_100mb_uploads_share_768mib(tmp_path: Path, log_100mb: Path) -> None:
    """16 x 100 MB at once: 202 or 503 + Retry-After; each admitted job right; RSS <= 1.2 budget."""
    budget = 768 * MB
    # a queue of 8 beside the 4 running: some of the 16 may be refused (503) at this scale too
    s = Server(
        tmp_path / "data", "--memory-budget", "768MiB", "--max-jobs", "4", "--max-queue", "8"
    )
    top, count = truth_top(log_100mb)
    peak, stop = [0], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], s.rss_bytes())
            time.sleep(0.02)

    answers: list[httpx.Response] = []

    def post() -> None:
        with open(log_100mb, "rb") as f:
            answers.append(httpx.post(f"{s.url}/v1/analyses?seed={SEED}", content=f, timeout=600))

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        clients = [threading.Thread(target=post) for _ in range(16)]
        for c in clients:
            c.start()
        for c in clients:
            c.join()
        assert len(answers) == 16
        for r in answers:
            assert r.status_code in (202, 503), r.text
            if r.status_code == 503:
                assert int(r.headers["Retry-After"]) > 0
        admitted = [r.json()["id"] for r in answers if r.status_code == 202]
        assert admitted
        for job_id in admitted:
            job = wait_done(s.url, job_id, timeout_s=600)
            assert job["status"] == "done", job
            result = job["result"]
            assert result["status"] in ("settled", "exact"), result["warnings"]
            first = result["answer"]["top"][0]
            assert first["key"] == top and first["low"] <= count <= first["high"], first
    finally:
        stop.set()
        sampler.join()
        s.stop()
    assert peak[0] <= 1.2 * budget, f"peak RSS {peak[0] >> 20} MiB over 1.2 x {budget >> 20} MiB"


def test_sigterm_lets_short_jobs_finish_and_checkpoints_long_ones(
    tmp_path: Path, log_100mb: Path, log_2mb: Path
) -> None:
    """SIGTERM: 503 meanwhile; a short job ends within --grace; a long one resumes after restart."""
    config = tmp_path / "slow.toml"
    # batches of 64 KiB and a checkpoint after each: the long job's full read takes ~20 s here,
    # the short one's ~1 s, against a grace of 10 s. With SLOW_CONFIG's 256 KiB batches the long
    # job took ~5 s in all, so it could end inside a 5 s grace and leave no checkpoint (seen
    # twice in CI). Both slow down alike under load; the margins are 10x and ~2x
    config.write_text(SLOW_CONFIG.replace('"256KiB"', '"64KiB"'))
    assert '"64KiB"' in config.read_text()
    data_dir = tmp_path / "data"
    args = ("--config", str(config), "--grace", "10")
    s = Server(data_dir, *args)
    url = f"{s.url}/v1/analyses?seed={SEED}&full=true"
    with open(log_100mb, "rb") as f:
        long_id = httpx.post(url, content=f, timeout=120).json()["id"]
    deadline = time.monotonic() + 60
    while not (data_dir / "checkpoints" / f"{long_id}.ckpt").exists():
        assert time.monotonic() < deadline, "the long job wrote no checkpoint"
        time.sleep(0.05)
    r = httpx.post(url, content=log_2mb.read_bytes(), timeout=60)
    assert r.status_code == 202 and r.json()["status"] == "running", r.text
    short_id = r.json()["id"]
    signalled = time.time()
    s.proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 10
    while httpx.get(f"{s.url}/healthz").status_code == 200:  # the drain has begun
        assert time.monotonic() < deadline, "the server did not start draining"
        time.sleep(0.02)
    refused = httpx.post(url, content=log_2mb.read_bytes(), timeout=60)
    assert refused.status_code == 503 and int(refused.headers["Retry-After"]) > 0
    assert s.proc.wait(120) == 0
    log = s.stderr.read_text()  # in the messages: a failure here was seen once, under load
    assert (data_dir / "checkpoints" / f"{long_id}.ckpt").exists(), log  # kept for next start
    assert '"event": "drained"' in log and '"checkpointed": 1' in log, log
    s2 = Server(data_dir, *args)
    try:
        short = wait_done(s2.url, short_id)
        assert short["status"] == "done", short
        assert short["updated_at"] > signalled  # it finished during the grace period
        assert all(t["reason"] != "drained" for t in short["trace"]), short
        same_answer(short["result"], cli_result(log_2mb, "--full"))
        long = wait_done(s2.url, long_id, timeout_s=600)
    finally:
        s2.stop()
    assert long["status"] == "done", long
    assert [t["reason"] for t in long["trace"]][-1] == "drained"
    same_answer(long["result"], cli_result(log_100mb, "--full"))
    assert long["result"]["input"]["paths"] == [f"upload:{long_id}"]
    assert uploads_left(data_dir) == []
