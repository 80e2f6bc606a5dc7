"""Scheduled incremental runs (EDGE): the state (SQLite), file identity across rotation,
alerts, and the runner that drives the engine over the new slices (``logagent cron``).
"""
