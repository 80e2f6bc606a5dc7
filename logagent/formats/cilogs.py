"""Built-in layouts of CI job logs (PURE): GitHub Actions and Azure Pipelines.

* ``github_actions``: a job's log as the runner writes it (the download of a job's logs,
  ``gh run view --log`` without its prefix, Azure Pipelines' too): every line opens with the
  runner's stamp, seven digits of fraction and a ``Z`` (``2021-09-28T03:48:11.9165133Z``),
  then the step's output. The runner's workflow commands mark the level:
  ``##[error]Process completed with exit code 5.`` is ERROR, ``##[warning]`` WARN,
  ``##[notice]`` INFO and ``##[debug]`` DEBUG; a line without one (a tool's own output, the
  ``##[group]`` marks) has no level. Component = the error kind. Read as syslog before
  (probe O), a third of a job's lines were malformed and its ``##[error]`` was no error:
  "no ERROR+ record in the whole input".
"""

from __future__ import annotations

from logagent.formats.app import AppRegexFormat

_RUNNER_STAMP = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{7}Z"
GITHUB_ACTIONS = AppRegexFormat(
    name="github_actions",
    patterns=(
        r"^(?P<ts>" + _RUNNER_STAMP + r") (?:##\[(?P<level>error|warning|notice|debug)\])?"
        r"(?P<message>.*)$",
    ),
    min_line_bytes=29,
    time_formats=("%Y-%m-%dT%H:%M:%S%.fZ",),
    head_component=True,
    description="GitHub Actions / Azure Pipelines job log: ##[error] ##[warning] ##[notice] "
    "##[debug] are the levels (other lines have none); component = the error kind",
    example="2021-09-28T03:52:40.1191010Z ##[error]Process completed with exit code 5.",
)
