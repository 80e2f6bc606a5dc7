"""Built-in layouts of desktop applications' own logs (PURE): IntelliJ and Minecraft.

* ``intellij``: the ``idea.log`` of IntelliJ IDEA, Android Studio and the other JetBrains
  IDEs, log4j's ``%d [%7r] %6p - %30.30c - %m``: ``2018-08-07 17:29:39,915 [238996401]  ERROR
  - aemon.impl.PassExecutorService - msg`` (the logger cut to its last 30 characters, a
  category ``#com.intellij...``; the bracket holds the milliseconds since start, or a thread
  name); component = the logger; stack traces folded. Read by nothing before (probe M): the
  level's `` - `` after it is no log4j layout, and a log whose lines are 82 % stack traces
  was refused as no known format.
* ``minecraft``: the Minecraft server's and client's ``latest.log`` (log4j2's
  ``[%d{HH:mm:ss}] [%t/%level]: %msg``, Forge's and Fabric's ``[%t/%level] [%logger]: %msg``):
  component = the logger where the line names one, else the error kind. The stamp has no
  date: records carry no time (a ``--since`` window is refused).
"""

from __future__ import annotations

from logagent.formats.app import AppRegexFormat
from logagent.formats.apptimes import DAY as _D4
from logagent.formats.apptimes import HMS as _HMS

_IDEA_HEAD = _D4 + " " + _HMS + r",[0-9]{3} \[[^\]]*\] +"
INTELLIJ = AppRegexFormat(
    name="intellij",
    patterns=(
        r"^(?P<ts>"
        + _D4
        + " "
        + _HMS
        + r",[0-9]{3}) \[[^\]]*\] +(?P<level>TRACE|DEBUG|INFO|WARN|ERROR|FATAL|SEVERE) - "
        r"+(?P<component>[^ ]+) +- ?(?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=("%Y-%m-%d %H:%M:%S,%3f",),
    record_start=_IDEA_HEAD + r"[A-Z]+ - ",
    description="IntelliJ / Android Studio idea.log (ts [ms]  LEVEL - logger - msg): "
    "component = logger; stack traces folded",
    example="2018-08-07 17:29:39,915 [238996401]  ERROR - aemon.impl.PassExecutorService - "
    "IntelliJ IDEA 2018.2.1",
)

_MC_LEVEL = r"(?P<level>TRACE|DEBUG|INFO|WARN|ERROR|FATAL)"
MINECRAFT = AppRegexFormat(
    name="minecraft",
    patterns=(
        r"^\[" + _HMS + r"\] \[[^\]]*/" + _MC_LEVEL + r"\] \[(?P<component>[^\]]+)\]: "
        r"(?P<message>.*)$",
        r"^\[" + _HMS + r"\] \[[^\]]*/" + _MC_LEVEL + r"\]: (?P<message>.*)$",
    ),
    min_line_bytes=18,
    record_start=r"\[" + _HMS + r"\] \[[^\]]*/[A-Z]+\]",
    head_component=True,
    description="Minecraft latest.log ([HH:MM:SS] [thread/LEVEL] [logger]: msg): component "
    "= logger, else the error kind; no date, so no time",
    example="[10:58:15] [main/WARN] [FML]: The coremod x is not signed",
)

DESKTOP_LAYOUTS = (INTELLIJ, MINECRAFT)
