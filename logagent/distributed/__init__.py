"""The engine on Dask (EDGE): imported only with ``--engine dask``.

``backend.dask_backend`` connects to a cluster (or starts a ``LocalCluster``)
and gives the engine a ``Backend`` (``engine.tallied``): workers read byte
ranges of local files or fsspec URLs and count them with the engine's own
extraction; the driver keeps the evidence, Router-Mem and the stop rule.
"""
