"""`logagent serve` throughput: uploads/s and analyses/s for 10 MB logs with 1-8 clients.

Starts a real server process on 127.0.0.1 (a fresh data directory), then for
each client count every client uploads the log ``--per-client`` times (no
``?wait``) and the run waits until every admitted job is done:

    uploads/s   = uploads answered 202 / time until the last upload was answered
    analyses/s  = jobs done / time from the first upload to the last result

With ``--big FILE`` it also times one upload of FILE (e.g. the 1 GB
benchmark log): seconds from the end of the upload to the result.

    python benchmarks/service_bench.py [--size-mb 10] [--clients 1,2,4,8] [--per-client 4]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(data_dir: Path, args: argparse.Namespace) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, "-m", "logagent", "serve", "--port", str(port)]
    cmd += ["--data-dir", str(data_dir), "--memory-budget", args.memory_budget]
    cmd += ["--max-jobs", str(args.max_jobs), "--max-queue", "10000", "--max-upload", "64GiB"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def wait_done(url: str, job_id: str) -> dict[str, Any]:
    while True:
        job: dict[str, Any] = httpx.get(f"{url}/v1/analyses/{job_id}").json()
        if job["status"] not in ("queued", "running"):
            return job
        time.sleep(0.05)


def round_of(url: str, data: bytes, clients: int, per_client: int) -> tuple[float, float]:
    """(uploads/s, analyses/s) for ``clients`` clients uploading ``per_client`` logs each."""
    ids: list[str] = []
    lock = threading.Lock()

    def client() -> None:
        with httpx.Client(timeout=600) as http:
            for _ in range(per_client):
                r = http.post(f"{url}/v1/analyses", content=data)
                if r.status_code == 202:
                    with lock:
                        ids.append(r.json()["id"])

    started = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    uploaded = time.monotonic() - started
    for job_id in ids:
        wait_done(url, job_id)
    finished = time.monotonic() - started
    return len(ids) / uploaded, len(ids) / finished


def big_upload(url: str, path: Path) -> tuple[float, float, str]:
    """(seconds to upload, seconds from the end of the upload to the result, what it was)."""
    started = time.monotonic()
    with open(path, "rb") as f:
        r = httpx.post(f"{url}/v1/analyses", content=f, timeout=3600)
    uploaded = time.monotonic()
    if r.status_code != 202:
        raise SystemExit(f"the upload of {path} got {r.status_code}: {r.text}")
    job = wait_done(url, r.json()["id"])
    done = time.monotonic()
    if job["status"] != "done":
        raise SystemExit(f"the job of {path} ended {job['status']}: {job.get('error')}")
    res = job["result"]
    what = f"{res['status']}, {res['progress']['fraction_read']:.1%} read"
    return uploaded - started, done - uploaded, what


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=10)
    ap.add_argument("--clients", default="1,2,4,8")
    ap.add_argument("--per-client", type=int, default=4)
    ap.add_argument("--memory-budget", default="1GiB")
    ap.add_argument("--max-jobs", type=int, default=2)
    ap.add_argument("--big", type=Path, default=None, help="also time one upload of this file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "bench.log"
        subprocess.run(
            [
                *(sys.executable, "-m", "logagent.samples", "--scenario", "dominant"),
                *("--size-mb", str(args.size_mb), "--seed", "1", "-o", str(log)),
            ],
            check=True,
            capture_output=True,
        )
        data = log.read_bytes()
        proc, url = start_server(Path(tmp) / "data", args)
        try:
            print(f"{args.size_mb} MB logs, --max-jobs {args.max_jobs}, {args.memory_budget}")
            print("| clients | uploads/s | analyses/s |\n|---|---|---|")
            for clients in (int(c) for c in args.clients.split(",")):
                up, done = round_of(url, data, clients, args.per_client)
                print(f"| {clients} | {up:.1f} | {done:.2f} |", flush=True)
            if args.big is not None:
                up_s, result_s, what = big_upload(url, args.big)
                print(
                    f"{args.big}: upload {up_s:.1f} s, upload end to result {result_s:.1f} s "
                    f"({what})"
                )
        finally:
            proc.terminate()
            proc.wait(60)


if __name__ == "__main__":
    main()
