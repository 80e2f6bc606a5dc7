"""The HTTP service front door (EDGE): ``logagent serve``, thin over ``engine.analyze``.

Modules: ``app`` (the FastAPI app factory and its routes), ``uploads`` (a body
streamed to disk, decoded on the way), ``params`` (query -> the CLI's settings
sections), ``execute`` (one job through the engine), ``runner`` (worker
threads under one memory budget: admission, queue, cancel, drain),
``store`` (jobs and results in SQLite), ``auth`` (Bearer keys), ``metrics``
(Prometheus). FastAPI, uvicorn and prometheus_client are imported only here,
so the rest of logagent never pays for them.
"""
