"""logagent: answer targeted questions about huge logs, reading only what the answer needs.

Public API::

    from logagent import analyze, load_settings, Question
    result = analyze(["access.log"], Question(kind="top-errors", top=5), load_settings())
"""

from logagent.config import Settings, load_settings
from logagent.engine import analyze
from logagent.result import Question, QuestionKind, Result, Status
from logagent.run import RunEnv

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
