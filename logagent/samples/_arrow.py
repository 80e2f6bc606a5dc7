"""PURE module: typed-as-Any handles to pyarrow (which ships no type stubs).

Importing through importlib keeps mypy --strict clean whatever the
project's mypy overrides for pyarrow are.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import numpy.typing as npt

pa: Any = importlib.import_module("pyarrow")
pc: Any = importlib.import_module("pyarrow.compute")

ArrowArray = Any
"""Alias used in annotations for ``pyarrow.Array`` values."""


def strings_from_pylist(values: list[str]) -> ArrowArray:
    """Return a pyarrow string array holding ``values``."""
    return pa.array(values, type=pa.string())


def ints_to_strings(values: npt.NDArray[np.int64]) -> ArrowArray:
    """Render integers as decimal strings, vectorized."""
    return pc.cast(pa.array(values, type=pa.int64()), pa.string())


def join(parts: list[Any]) -> ArrowArray:
    """Concatenate arrow string arrays / python strings element-wise."""
    return pc.binary_join_element_wise(*parts, "")


def string_data(arr: ArrowArray) -> memoryview:
    """Return the contiguous UTF-8 bytes of a string array (no copy)."""
    bufs = arr.buffers()
    width = 8 if arr.type == pa.large_string() else 4
    dtype = np.int64 if width == 8 else np.int32
    offsets = np.frombuffer(bufs[1], dtype=dtype)
    start = int(offsets[arr.offset])
    stop = int(offsets[arr.offset + len(arr)])
    if bufs[2] is None:
        return memoryview(b"")
    return memoryview(bufs[2])[start:stop]


def ragged_strings(mat: npt.NDArray[np.uint8], lens: npt.NDArray[np.int64]) -> ArrowArray:
    """Build a string array whose row i is ``mat[i, :lens[i]]`` (ASCII)."""
    width = mat.shape[1]
    mask = np.arange(width)[None, :] < lens[:, None]
    data = np.ascontiguousarray(mat[mask])
    offsets = np.zeros(len(lens) + 1, dtype=np.int32)
    np.cumsum(lens, out=offsets[1:])
    return pa.StringArray.from_buffers(len(lens), pa.py_buffer(offsets), pa.py_buffer(data))
