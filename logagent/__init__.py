"""logagent: answer targeted questions about huge logs, reading only what the answer needs.

Public API::

    from logagent import analyze, load_settings, Question
    result = analyze(["access.log"], Question(kind="top-errors", top=5), load_settings())

The names are loaded on first use (PEP 562): importing ``logagent.cli`` for
``logagent --help`` must not load Polars and the engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from logagent.config import Settings, load_settings
    from logagent.engine import analyze
    from logagent.engine.run import RunEnv
    from logagent.result import Question, QuestionKind, Result, Status

_WHERE = {
    "Question": "logagent.result",
    "QuestionKind": "logagent.result",
    "Result": "logagent.result",
    "Status": "logagent.result",
    "RunEnv": "logagent.engine.run",
    "Settings": "logagent.config",
    "load_settings": "logagent.config",
    "analyze": "logagent.engine",
}

__all__ = [
    "Question",
    "QuestionKind",
    "Result",
    "RunEnv",
    "Settings",
    "Status",
    "analyze",
    "load_settings",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module when the name is first used."""
    if name not in _WHERE:
        raise AttributeError(f"module 'logagent' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
