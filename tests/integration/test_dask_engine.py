"""--engine dask: a real scheduler and two worker processes on 127.0.0.1 give the local answers.

One cluster (``LocalCluster`` with processes) serves the whole module; an
S3-compatible server (moto) on 127.0.0.1 is started first, so the worker
processes inherit its endpoint and the same logs are also read as s3:// URLs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")
pytest.importorskip("moto")

from logagent import Question, analyze, load_settings
from logagent.distributed.backend import DaskBackend
from logagent.distributed.workermem import ScriptedProbe, TaskMemory
from logagent.engine.run import ProgressEvent
from logagent.result import QuestionKind, Result, Status
from logagent.samples import generate
from logagent.samples.app import generate as generate_app
from logagent.testing import fake_env

ROOT = Path(__file__).resolve().parents[2]
BUCKET = "logs"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Generated logs: an early-stopping one, a close one read whole, an app log."""
    d = tmp_path_factory.mktemp("dask_logs")
    out = {
        "dominant": d / "dominant.log",
        "close": d / "close.log",
        "app": d / "app.jsonl",
    }
    generate(out["dominant"], scenario="dominant", size_mb=20, seed=3)
    generate(out["close"], scenario="close", size_mb=6, seed=2)
    generate_app(out["app"], size_mb=6, seed=4)
    return out


@pytest.fixture(scope="module")
def s3(logs: dict[str, Path]) -> Iterator[str]:
    """A moto S3 server on 127.0.0.1 holding the logs; its endpoint in the environment."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    saved = dict(os.environ)
    os.environ.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
        FSSPEC_S3_ENDPOINT_URL=endpoint,  # read by fsspec at import, in the worker processes too
    )
    import boto3
    import fsspec.config

    fsspec.config.conf.setdefault("s3", {})["endpoint_url"] = endpoint  # this process
    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    for path in logs.values():
        client.upload_file(str(path), BUCKET, path.name)
    yield endpoint
    fsspec.config.conf["s3"].pop("endpoint_url", None)
    os.environ.clear()
    os.environ.update(saved)
    server.stop()


@pytest.fixture(scope="module")
def cluster(s3: str) -> Iterator[Any]:
    """A scheduler and two single-threaded worker processes on 127.0.0.1."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
            silence_logs=50,
        ) as lc,
        Client(lc) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def backend(cluster: Any) -> DaskBackend:
    return DaskBackend(cluster, threads=2, description="dask test cluster, 2 workers")


def ask(
    paths: list[str],
    kind: QuestionKind,
    backend: DaskBackend | None,
    *,
    top: int = 1,
    env_hook: Any = None,
    unit_size: int = 1024,
    **analysis: Any,
) -> Result:
    # Small units and batches: an early stop inside 20 MB, after many batches in flight.
    reader = {"unit_size": unit_size, "batch_bytes": 1 << 20}
    analysis = {"seed": 11, "degrade_above": 1.0, **analysis}  # the race itself, no shortcut
    settings = load_settings(analysis=analysis, reader=reader)
    env = replace(fake_env(), backend=backend, on_progress=env_hook)
    return analyze(paths, Question(kind=kind, top=top), settings, env)


def same(local: Result, remote: Result) -> None:
    """The same answer, status, units read and decision trace."""
    assert remote.status == local.status
    assert remote.answer == local.answer
    assert remote.progress.units_read == local.progress.units_read
    assert remote.progress.bytes_read == local.progress.bytes_read
    trace = [(d.units_read, d.action, d.reason) for d in local.decisions]
    assert [(d.units_read, d.action, d.reason) for d in remote.decisions] == trace


def test_top_errors_early_stop_equals_local(logs: dict[str, Path], backend: DaskBackend) -> None:
    """top-errors stopped early on Dask: the local engine's answer, at the same unit."""
    path = [str(logs["dominant"])]
    local = ask(path, QuestionKind.TOP_ERRORS, None)
    remote = ask(path, QuestionKind.TOP_ERRORS, backend)
    assert local.status is Status.SETTLED and local.progress.fraction_read < 1
    same(local, remote)
    assert backend.last_feed is not None and backend.last_feed.handed_on > 1


def test_top_errors_full_equals_local(logs: dict[str, Path], backend: DaskBackend) -> None:
    """--full on Dask is a tree-merge of task tallies: the exact local counts."""
    path = [str(logs["dominant"]), str(logs["close"])]
    local = ask(path, QuestionKind.TOP_ERRORS, None, full=True, top=5)
    remote = ask(path, QuestionKind.TOP_ERRORS, backend, full=True, top=5)
    assert local.status is Status.EXACT
    assert remote.status is Status.EXACT
    assert remote.answer == local.answer
    assert remote.progress.lines_read == local.progress.lines_read


def test_a_time_window_of_an_ordered_file_equals_local(
    tmp_path: Path, backend: DaskBackend
) -> None:
    """--since/--until on a time-ordered file: the local engine reads the window's byte range
    (bisection); the workers read the file whole and filter by time (they had refused the
    driver's plan of the range: "the input holds 560160 bytes on this worker"). Same counts."""
    lines = []
    for i in range(7200):
        stamp = f"06/Dec/2026:{10 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d} +0100"
        status = 503 if i % 4 == 0 else 200
        lines.append(f'10.0.0.1 - - [{stamp}] "GET /r/{i % 3} HTTP/1.1" {status} 5 "-" "ua"')
    log = tmp_path / "win.log"
    log.write_text("\n".join(lines) + "\n")
    question = Question(
        kind=QuestionKind.STATUS, since="2026-12-06T09:30:00Z", until="2026-12-06T09:40:00Z"
    )
    settings = load_settings(reader={"unit_size": 1024, "batch_bytes": 1 << 20})
    local = analyze([str(log)], question, settings, fake_env())
    remote = analyze([str(log)], question, settings, replace(fake_env(), backend=backend))
    assert local.input.window is not None and local.input.window["method"] == "bisection"
    assert remote.status is local.status is Status.EXACT
    assert remote.answer.total == local.answer.total == 601
    assert remote.answer.classes == local.answer.classes


def test_error_rate_equals_local(logs: dict[str, Path], backend: DaskBackend) -> None:
    """error-rate on Dask: the local engine's answer and trace."""
    path = [str(logs["close"])]
    same(ask(path, QuestionKind.ERROR_RATE, None), ask(path, QuestionKind.ERROR_RATE, backend))


def test_app_log_question_equals_local(logs: dict[str, Path], backend: DaskBackend) -> None:
    """top-error-components of an application log on Dask: the local answer and trace."""
    path = [str(logs["app"])]
    kind = QuestionKind.TOP_ERROR_COMPONENTS
    same(ask(path, kind, None), ask(path, kind, backend))


def test_worker_killed_mid_run_keeps_answer(
    logs: dict[str, Path], backend: DaskBackend, cluster: Any
) -> None:
    """A worker killed after the second batch: Dask retries its tasks, each unit counted once."""
    path = [str(logs["close"])]
    killed: list[int] = []

    def kill_one(event: ProgressEvent) -> None:
        del event
        if len(killed) == 0:
            pids = cluster.run(os.getpid)
            killed.append(next(iter(pids.values())))
            os.kill(killed[0], signal.SIGKILL)

    local = ask(path, QuestionKind.TOP_ERRORS, None, top=2, unit_size=4096)
    remote = ask(path, QuestionKind.TOP_ERRORS, backend, top=2, unit_size=4096, env_hook=kill_one)
    assert killed and len(local.decisions) > 2  # killed with batches still to come
    same(local, remote)


def test_s3_urls_equal_local_paths(logs: dict[str, Path], backend: DaskBackend) -> None:
    """s3:// URLs on a moto server, read by the workers: the same answers as the local files."""
    close, dominant = (f"s3://{BUCKET}/{logs[n].name}" for n in ("close", "dominant"))
    local = ask([str(logs["close"])], QuestionKind.TOP_ERRORS, None, top=2, unit_size=4096)
    same(local, ask([close], QuestionKind.TOP_ERRORS, backend, top=2, unit_size=4096))
    full = ask([str(logs["dominant"])], QuestionKind.ERROR_RATE, None, full=True)
    assert ask([dominant], QuestionKind.ERROR_RATE, backend, full=True).answer == full.answer


def test_s3_gzip_object_is_one_task(
    logs: dict[str, Path], backend: DaskBackend, s3: str, tmp_path: Path
) -> None:
    """A gzip object is read whole by one task, in order, and the result says so."""
    import gzip

    import boto3

    packed = tmp_path / "close.log.gz"
    packed.write_bytes(gzip.compress(logs["close"].read_bytes()))
    boto3.client("s3", endpoint_url=s3, region_name="us-east-1").upload_file(
        str(packed), BUCKET, packed.name
    )
    local = ask([str(packed)], QuestionKind.TOP_ERRORS, None, unit_size=4096)
    remote = ask([f"s3://{BUCKET}/{packed.name}"], QuestionKind.TOP_ERRORS, backend, unit_size=4096)
    assert local.status is Status.EXACT
    assert remote.status is Status.EXACT and remote.answer == local.answer
    assert any("compressed inputs cannot be split" in w for w in remote.warnings)


def scripted(cluster: Any, *use: float) -> DaskBackend:
    """A backend whose tasks read their worker's real limit and an RSS scripted against it."""
    memory = TaskMemory(probe=ScriptedProbe(use))
    return DaskBackend(cluster, threads=2, description="dask test cluster", memory=memory)


def test_workers_at_high_memory_take_the_ladder_and_keep_the_answer(
    logs: dict[str, Path], cluster: Any
) -> None:
    """Every worker HIGH (RSS 90 % of its own limit): batches in quarters, the local answer."""
    path = [str(logs["close"])]
    backend = scripted(cluster, 0.9)
    local = ask(path, QuestionKind.TOP_ERRORS, None, top=2, unit_size=4096)
    remote = ask(path, QuestionKind.TOP_ERRORS, backend, top=2, unit_size=4096)
    same(local, remote)
    limits = {a: w["memory_limit"] for a, w in cluster.scheduler_info()["workers"].items()}
    notes = backend.last_notes
    assert len(notes) == len(local.decisions)  # each batch's task took the step
    assert {n.worker for n in notes} <= set(limits) and all(n.stopped is None for n in notes)
    for note in notes:
        assert note.steps == ("smaller_batches",)
        assert f"of {limits[note.worker] >> 20} MiB" in note.details[0]  # its own limit


def test_a_worker_over_its_limit_gives_a_partial_answer_naming_it(
    logs: dict[str, Path], cluster: Any
) -> None:
    """HIGH, then over its limit after one piece: STOP_PARTIAL memory, that prefix counted."""
    backend = scripted(cluster, 0.9, 1.2)
    remote = ask([str(logs["close"])], QuestionKind.TOP_ERRORS, backend, unit_size=4096)
    assert remote.status is Status.PARTIAL
    last = remote.decisions[-1]
    assert (last.action, last.reason) == ("STOP_PARTIAL", "memory_forecast")
    stop = backend.last_notes[0]
    assert stop.stopped is not None and stop.worker in last.detail
    assert remote.progress.units_read == stop.counted > 0


def test_full_read_on_high_workers_is_exact_and_over_the_limit_keeps_nothing(
    logs: dict[str, Path], cluster: Any
) -> None:
    """--full with HIGH workers: the exact local counts; over the limit: no count half-made."""
    path = [str(logs["close"])]
    local = ask(path, QuestionKind.ERROR_RATE, None, full=True)
    assert ask(path, QuestionKind.ERROR_RATE, scripted(cluster, 0.9), full=True).answer == (
        local.answer
    )
    over = ask(path, QuestionKind.ERROR_RATE, scripted(cluster, 0.9, 1.2), full=True)
    assert over.status is Status.RECUSED and over.progress.units_read == 0
    assert over.recuse is not None and over.recuse.reason_code == "MEMORY_EXHAUSTED"  # as locally
    assert any(d.reason == "memory_forecast" and "tcp://" in d.detail for d in over.decisions)


def test_cli_engine_dask_with_scheduler(logs: dict[str, Path], cluster: Any) -> None:
    """`analyze --engine dask --scheduler ADDR --json` prints the local engine's answer."""
    args = [str(logs["close"]), "--seed", "5", "--json", "--quiet", "--llm", "off"]
    address = cluster.scheduler.address

    def run(*extra: str) -> dict[str, Any]:
        proc = subprocess.run(
            [sys.executable, "-m", "logagent", "analyze", *args, *extra],
            capture_output=True,
            timeout=300,
            check=False,
            cwd=ROOT,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        return dict(json.loads(proc.stdout))

    local, remote = run(), run("--engine", "dask", "--scheduler", address)
    assert remote["answer"] == local["answer"]
    assert remote["progress"]["units_read"] == local["progress"]["units_read"]


def test_cli_scheduler_without_dask_engine_is_usage_error(logs: dict[str, Path]) -> None:
    """--scheduler without --engine dask: exit 2 with a message, no traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", str(logs["close"]), "--scheduler", "x"],
        capture_output=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 2
    assert b"--engine dask" in proc.stderr and b"Traceback" not in proc.stderr


@pytest.mark.parametrize("kind", [QuestionKind.TOP_ERRORS, QuestionKind.STATUS])
def test_max_fraction_bounds_a_remote_full_read(
    logs: dict[str, Path], backend: DaskBackend, tmp_path: Path, kind: QuestionKind
) -> None:
    """--max-fraction 0.1 on Dask read everything, "exact" (the tasks of every unit were
    submitted). Now the first tenth of the units is counted and the answer is partial, with
    the counts of exactly those units: a local read of the lines starting in them."""
    path = logs["dominant"]
    unit = 1024
    settings = load_settings(
        analysis={"seed": 11, "full": True},
        reader={"unit_size": unit, "batch_bytes": 1 << 20},
        budget={"max_fraction": 0.1},
    )
    env = replace(fake_env(), backend=backend)
    remote = analyze([str(path)], Question(kind=kind, top=5), settings, env)
    total = -(-path.stat().st_size // unit)
    most = -(-total // 10)
    assert remote.status is Status.PARTIAL and remote.progress.units_read == most
    assert remote.decisions[-1].reason == "fraction_budget"
    head = tmp_path / "head.log"
    with open(path, "rb") as src, open(head, "wb") as out:  # the lines that start in the units
        out.write(src.read(most * unit))
        out.write(src.readline())
    whole = load_settings(analysis={"seed": 11, "full": True}, reader={"unit_size": unit})
    local = analyze([str(head)], Question(kind=kind, top=5), whole, fake_env())
    assert local.status is Status.EXACT

    def counts(r: Result) -> list[tuple[str, int, dict[str, float]]]:
        return [(e.key, e.count, e.breakdown) for e in r.answer.top]  # a partial's bounds differ

    assert counts(remote) == counts(local) and len(counts(local)) >= 3
    assert remote.progress.lines_read == local.progress.lines_read
