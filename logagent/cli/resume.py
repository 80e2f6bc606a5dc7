"""``logagent resume``: go on with a checkpointed run (EDGE)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from logagent.cli.frontdoor import (
    configure_logging,
    front_door,
    interrupt_flag,
    progress_display,
)

if TYPE_CHECKING:
    from logagent.config import Settings
    from logagent.result import Result


@click.command("resume")
@click.argument("checkpoint_file", type=click.Path(dir_okay=False))
@click.option(
    "--memory-budget",
    default=None,
    help="A new memory budget (a partial answer stopped by memory can go on with more).",
)
@click.option("--max-seconds", type=click.FloatRange(0, min_open=True), default=None)
@click.option("--max-cpu-seconds", type=click.FloatRange(0, min_open=True), default=None)
@click.option("--max-fraction", type=click.FloatRange(0, 1, min_open=True), default=None)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Write to FILE.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False), default=None)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def resume_cmd(checkpoint_file: str, **opts: Any) -> None:
    """Go on with the run saved in CHECKPOINT_FILE (same inputs, question, seed) to its end.

    Budgets given here replace the saved ones; the checkpoint keeps being
    updated, and is removed once the run finishes.
    """
    configure_logging()

    def run() -> tuple[Result, Settings]:
        from logagent.cli.output import check_outputs
        from logagent.cli.startup import imports_done
        from logagent.engine import analyze
        from logagent.engine.checkpoint import CheckpointFile, held
        from logagent.engine.checkpoint import load as load_checkpoint
        from logagent.engine.run import RunEnv
        from logagent.result import Question

        imports_done()
        cp = load_checkpoint(checkpoint_file)
        check_outputs(opts["out"], opts["html_out"], cp.paths)  # nor the run's inputs
        budget = {k: opts[k] for k in ("max_seconds", "max_cpu_seconds", "max_fraction")}
        budget["memory"] = opts["memory_budget"]
        settings = resumed_settings(cp.settings, checkpoint_file, budget)
        with (
            held(checkpoint_file),
            interrupt_flag() as interrupted,
            progress_display(opts["quiet"]) as on_progress,
        ):
            env = RunEnv(
                interrupted=interrupted,
                pending_signal=interrupted,  # the CLI's flag is a plain read
                on_progress=on_progress,
                checkpoint=CheckpointFile(checkpoint_file),
            )
            question = Question.model_validate(cp.question)
            return analyze(list(cp.paths), question, settings, env, resume=cp), settings

    front_door(
        run,
        as_json=opts["as_json"],
        out=opts["out"],
        html_out=opts["html_out"],
        inputs=[checkpoint_file],  # a partial run's output would replace its progress
    )


def resumed_settings(saved: dict[str, Any], path: str, budget: dict[str, Any]) -> Settings:
    """The saved settings of a run, with new budgets and its checkpoint file."""
    from logagent.config import Settings
    from logagent.engine.checkpoint import CheckpointError

    try:
        values = dict(saved)
        values["budget"] = {**values.get("budget", {}), **_drop_none_values(budget)}
        values["checkpoint"] = {**values.get("checkpoint", {}), "path": path}
        return Settings.model_validate(values)
    except (ValueError, TypeError) as exc:
        raise CheckpointError(f"the checkpoint's settings are not valid here ({exc})") from exc


def _drop_none_values(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}
