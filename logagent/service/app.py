"""The FastAPI app (EDGE): routes, errors -> HTTP statuses (one table), lifespan.

``create_app(cfg)`` builds an app with its own store, runner and metrics,
so tests start several. The POST handler reads the raw body itself
(``request.stream()``) and writes it to disk chunk by chunk: no framework
buffers or parses the body before the handler runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.requests import ClientDisconnect
from starlette.responses import StreamingResponse

from logagent.service.auth import authorized
from logagent.service.config import ServiceConfig
from logagent.service.execute import check_params
from logagent.service.metrics import CONTENT_TYPE
from logagent.service.params import ParamError, parse_query
from logagent.service.paths import PathRefused, allowed_path
from logagent.service.runner import Draining, QueueFull
from logagent.service.state import Service
from logagent.service.store import FINAL, Job
from logagent.service.uploads import UploadError, UploadTooLarge, receive

WAIT_POLL_S = 0.1
SSE_POLL_S = 0.25
MAX_JSON_BODY = 64 << 10


def create_app(cfg: ServiceConfig) -> FastAPI:
    """The service's app: ``lifespan`` opens the store, recovers jobs, and drains at exit."""
    service = Service(cfg)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.start()
        yield
        await asyncio.to_thread(service.stop)

    app = FastAPI(title="logagent", version="1", lifespan=lifespan)
    app.state.service = service

    def require_key(request: Request) -> None:
        if cfg.api_keys and not authorized(request.headers.get("authorization"), cfg.api_keys):
            raise HTTPException(401, "unauthorized", headers={"WWW-Authenticate": "Bearer"})

    auth = [Depends(require_key)]

    @app.exception_handler(ParamError)
    async def _param_error(request: Request, exc: ParamError) -> JSONResponse:
        return JSONResponse({"detail": exc.errors}, status_code=422)

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        if service.runner.accepting:
            return JSONResponse({"status": "ok"})
        return JSONResponse({"status": "draining"}, status_code=503)  # balancers: send elsewhere

    @app.get("/metrics", dependencies=auth)
    async def metrics() -> Response:
        return Response(service.metrics.render(), media_type=CONTENT_TYPE)

    @app.post("/v1/analyses", dependencies=auth, status_code=202)
    async def create(request: Request) -> Response:
        req = parse_query(request.query_params.multi_items())
        check_params(req.params, cfg)  # a malformed question is 422 before the body is read
        service.runner.expire(time.time())
        if service.runner.would_refuse():
            return _busy(cfg, draining=not service.runner.accepting)
        job_id = uuid.uuid4().hex
        ctype = request.headers.get("content-type", "")
        if ctype.split(";")[0].strip().lower() == "application/json":
            job = await _path_job(request, cfg, job_id, req.params.model_dump(exclude_none=True))
        else:
            job = await _upload_job(request, service, job_id, req)
        if isinstance(job, Response):
            return job
        service.store.add(job)
        try:
            service.runner.submit(job)
        except (QueueFull, Draining) as exc:
            service.store.delete(job.id)
            if job.upload:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(job.upload)
            return _busy(cfg, draining=isinstance(exc, Draining))
        return await _answer(request, service, job.id, req.wait_s)

    @app.get("/v1/analyses/{job_id}", dependencies=auth)
    async def status(request: Request, job_id: str) -> dict[str, Any]:
        return _public(request, service, _job(service, job_id))

    @app.get("/v1/analyses/{job_id}/report", dependencies=auth)
    async def report(request: Request, job_id: str) -> Response:
        job = _job(service, job_id)
        if job.result is None:
            if job.status in ("queued", "running"):
                raise HTTPException(409, f"the job is {job.status}: no result yet")
            raise HTTPException(409, f"the job ended {job.status} without a result: {job.error}")
        if "text/html" in request.headers.get("accept", ""):
            from logagent.report.html import render_html
            from logagent.result import Result

            return HTMLResponse(render_html(Result.model_validate(job.result)))
        markdown = job.result["report"]["markdown"]
        return PlainTextResponse(markdown, media_type="text/markdown; charset=utf-8")

    @app.delete("/v1/analyses/{job_id}", dependencies=auth)
    async def cancel(request: Request, job_id: str) -> dict[str, Any]:
        _job(service, job_id)
        await asyncio.to_thread(service.runner.cancel, job_id)
        return _public(request, service, _job(service, job_id))

    @app.get("/v1/analyses/{job_id}/events", dependencies=auth)
    async def events(job_id: str) -> StreamingResponse:
        _job(service, job_id)
        return StreamingResponse(_sse(service, job_id), media_type="text/event-stream")

    return app


def _busy(cfg: ServiceConfig, *, draining: bool = False) -> JSONResponse:
    """503 with Retry-After: too many jobs, or the service is shutting down."""
    why = "the service is shutting down" if draining else "too many jobs"
    return JSONResponse(
        {"detail": f"{why}: try again later"},
        status_code=503,
        headers={"Retry-After": str(cfg.retry_after_s)},
    )


def _job(service: Service, job_id: str) -> Job:
    job = service.store.get(job_id)
    if job is None:
        raise HTTPException(404, "no such analysis")
    return job


def _public(request: Request, service: Service, job: Job) -> dict[str, Any]:
    out = job.public()
    live = service.runner.live_progress(job.id) if job.status == "running" else None
    if live:
        out["progress"] = live
    out["status_url"] = str(request.url_for("status", job_id=job.id))
    return out


async def _answer(request: Request, service: Service, job_id: str, wait_s: float) -> Response:
    """202 with the job's address, or 200 with its result when it ends within ``wait_s``."""
    deadline = time.monotonic() + wait_s
    job = _job(service, job_id)
    while wait_s > 0 and job.status not in FINAL and time.monotonic() < deadline:
        if _drained(service, job):
            break
        await asyncio.sleep(WAIT_POLL_S)
        job = _job(service, job_id)
    code = 200 if job.status in FINAL and wait_s > 0 else 202
    return JSONResponse(_public(request, service, job), status_code=code)


async def _upload_job(request: Request, service: Service, job_id: str, req: Any) -> Job | Response:
    """Stream the body to ``uploads/<id>.log``; an error response, with nothing left behind."""
    cfg = service.cfg
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > cfg.max_upload_bytes:
        return _error(UploadTooLarge(f"the upload is larger than {cfg.max_upload_bytes:,} bytes"))
    path = os.path.join(cfg.uploads_dir, f"{job_id}.log")
    try:
        with open(path, "xb") as f:
            got = await receive(
                request.stream(),
                f,
                max_bytes=cfg.max_upload_bytes,
                content_type=request.headers.get("content-type", ""),
                content_encoding=request.headers.get("content-encoding", ""),
                content_disposition=request.headers.get("content-disposition", ""),
                on_bytes=service.metrics.uploaded.inc,
                stopping=lambda: not service.runner.accepting,
            )
    except UploadError as exc:
        _unlink(path)
        return _error(exc, cfg.retry_after_s)
    except ClientDisconnect:
        _unlink(path)
        return Response(status_code=499)  # nobody reads it: the client is gone
    except BaseException:
        _unlink(path)
        raise
    params = {
        "query": req.params.model_dump(exclude_none=True),
        "compression": got.kind,
        "received": got.received,
        "filename": got.filename,  # what the result calls the input (else upload:<id>)
        **({"damaged": got.damaged} if got.damaged else {}),  # the answer is then partial
    }
    return _new_job(service, job_id, params, upload=path, size=got.stored)


async def _path_job(
    request: Request, cfg: ServiceConfig, job_id: str, query: dict[str, Any]
) -> Job | Response:
    """``{"path": ...}``: a file already on the server, under an allowed root (else 403)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_JSON_BODY:
            detail = (  # a JSON log sent as application/json had "the JSON body is too large"
                f'a JSON body only names a file on the server ({{"path": ...}}, at most '
                f"{MAX_JSON_BODY:,} bytes); send a log (JSON lines too) as "
                "application/octet-stream, text/plain or multipart/form-data"
            )
            return JSONResponse({"detail": detail}, status_code=413)
    try:
        data = json.loads(body or b"{}")
        raw = data["path"] if isinstance(data, dict) else None
        if not isinstance(raw, str):
            raise ValueError
    except (ValueError, KeyError, RecursionError):  # RecursionError: [[[...]]] deep enough
        msg = (
            "a JSON object with a string path (a file on the server); send a log itself as "
            "application/octet-stream, text/plain or multipart/form-data"
        )
        return JSONResponse({"detail": [{"loc": ["body", "path"], "msg": msg}]}, status_code=422)
    extra = sorted(set(data) - {"path"})
    if extra:  # a question in the body was run as the default one, silently
        msg = f"unknown key(s) {', '.join(extra)}: the body holds the path; ask by query parameters"
        return JSONResponse({"detail": [{"loc": ["body", extra[0]], "msg": msg}]}, 422)
    try:
        path = allowed_path(raw, cfg.allow_path_roots)
    except PathRefused as exc:
        return JSONResponse({"detail": exc.message}, status_code=exc.status)
    now = time.time()
    return Job(
        id=job_id,
        status="queued",
        created_at=now,
        updated_at=now,
        params={"query": query, "path": path, "given_path": raw},
        checkpoint=os.path.join(cfg.checkpoints_dir, f"{job_id}.ckpt"),
        progress={"bytes_total": os.path.getsize(path)},
    )


def _new_job(
    service: Service, job_id: str, params: dict[str, Any], *, upload: str, size: int
) -> Job:
    now = time.time()
    checkpoint = os.path.join(service.cfg.checkpoints_dir, f"{job_id}.ckpt")
    return Job(
        id=job_id,
        status="queued",
        created_at=now,
        updated_at=now,
        params=params,
        upload=upload,
        bytes_uploaded=size,
        checkpoint=checkpoint,
        progress={"bytes_total": size},
    )


def _error(exc: UploadError, retry_after_s: int = 5) -> JSONResponse:
    headers = {"Retry-After": str(retry_after_s)} if exc.status == 503 else None
    return JSONResponse({"detail": exc.message}, status_code=exc.status, headers=headers)


def _unlink(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


async def _sse(service: Service, job_id: str) -> AsyncIterator[str]:
    """Server-Sent Events: status, progress and decisions, until the job is final."""
    seen, had_log = 0, False
    while True:
        events = service.runner.events.get(job_id)
        # read before the items: a log closed by then holds its last event among them (the job
        # thread adds the final status, then closes; read after, a stream could end without it)
        closed = events is not None and events.closed
        if events is not None:
            had_log = True
            items = events.items[seen:]
            seen += len(items)
            for item in items:
                yield _event(item["event"], item["data"])
        job = service.store.get(job_id)
        if job is None:
            return
        if _drained(service, job):  # checkpointed for the next start: this stream ends here
            yield _event("status", {"status": job.status, "detail": "the server is stopping"})
            return
        if job.status in FINAL and (events is None or closed):
            if events is None and not had_log:  # finished long ago: replay its end from SQLite
                for decision in (job.result or {}).get("decisions", []):
                    yield _event("decision", decision)
            if events is None:
                yield _event("status", {"status": job.status})
            return
        await asyncio.sleep(SSE_POLL_S)


def _drained(service: Service, job: Job) -> bool:
    """The server is stopping and ``job`` will not run before it starts again."""
    return not service.runner.accepting and job.status == "queued"


def _event(name: str, data: Any) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"
