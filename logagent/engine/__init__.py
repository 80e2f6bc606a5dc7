"""The engine: one run loop behind every front door (CLI, cron, service).

``analyze`` (in ``core``) reads the units the answer needs and returns a
``Result``; ``choose`` picks the format and ``views`` wraps it for the
question (window, templates, timeline); ``sampled`` is the early-stop read,
``run`` the state of one run, ``outcome`` and ``answers`` turn tallies into the
result (``recusal`` when the run cannot answer), ``checkpoint`` saves and
restores a run. Decisions come from the pure core in ``logagent.routermem``.
"""

from logagent.engine.core import analyze

__all__ = ["analyze"]
