"""When detection calls its choice ambiguous: the runner-up within a margin of the best's own
share (probe G: a uwsgi log whose best read 1.9 % of the sample was "ambiguous" against a
format that read none of it)."""

from __future__ import annotations

import pytest

from logagent.formats.detect import Detection


@pytest.mark.parametrize(
    ("scores", "ambiguous"),
    [
        ((("uwsgi", 0.019), ("billing", 0.0)), False),  # nothing read by the runner-up
        ((("uwsgi", 0.019), ("redis", 0.0185)), True),  # as little, but as much
        ((("log4j", 0.5), ("supervisord", 0.49)), True),
        ((("log4j", 0.5), ("supervisord", 0.46)), False),  # 4 points of 50 %: 8 % apart
        ((("kafka", 1.0), ("zookeeper", 0.96)), True),
        ((("kafka", 1.0), ("zookeeper", 0.94)), False),
        ((("caddy", 1.0), ("zap_json", 1.0)), False),  # nested: Caddy writes with zap
        ((("combined", 0.0), ("common", 0.0)), False),  # nothing read at all
    ],
)
def test_the_margin_is_a_share_of_the_best(
    scores: tuple[tuple[str, float], ...], ambiguous: bool
) -> None:
    assert Detection(scores, 200).ambiguous is ambiguous
