"""Router-Mem: the decision after each batch (``router``, PURE), the memory
forecast (``forecast``, PURE) and the process's memory readings (``memory``,
the thin adapter over /proc and psutil that tests replace)."""
