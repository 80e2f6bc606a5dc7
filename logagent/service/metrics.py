"""Prometheus metrics of one service (EDGE: prometheus_client, its own registry).

Jobs by state and memory are read when scraped (from the job store and
/proc), so they are never stale; bytes, fraction read and decisions are
counted as uploads arrive and jobs end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class _Live(Collector):
    """Gauges computed at scrape time."""

    def __init__(self, counts: Callable[[], dict[str, int]], rss: Callable[[], int], budget: int):
        self._counts, self._rss, self._budget = counts, rss, budget

    def collect(self) -> Iterator[GaugeMetricFamily]:
        jobs = GaugeMetricFamily("logagent_jobs", "Jobs by state.", labels=["state"])
        for state, n in self._counts().items():
            jobs.add_metric([state], n)
        yield jobs
        yield GaugeMetricFamily("logagent_memory_rss_bytes", "Service RSS.", value=self._rss())
        yield GaugeMetricFamily(
            "logagent_memory_budget_bytes", "The one memory budget.", value=self._budget
        )


class Metrics:
    """The service's metrics, in a registry of its own (tests start many apps)."""

    def __init__(self, counts: Callable[[], dict[str, int]], rss: Callable[[], int], budget: int):
        self.registry = CollectorRegistry()
        self.registry.register(_Live(counts, rss, budget))
        self.uploaded = Counter(
            "logagent_uploaded_bytes", "Bytes received in uploads.", registry=self.registry
        )
        self.read = Counter(
            "logagent_read_bytes", "Bytes the finished jobs read.", registry=self.registry
        )
        self.fraction = Histogram(
            "logagent_fraction_read",
            "Fraction of its input a finished job read.",
            buckets=(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0),
            registry=self.registry,
        )
        self.decisions = Counter(
            "logagent_decisions",
            "Router-Mem decisions of finished jobs, by action.",
            ["action"],
            registry=self.registry,
        )

    def job_done(self, result: dict[str, Any]) -> None:
        """Count what a finished job read and decided."""
        progress = result["progress"]
        self.read.inc(progress["bytes_read"])
        self.fraction.observe(progress["fraction_read"])
        for decision in result["decisions"]:
            self.decisions.labels(decision["action"]).inc()

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
