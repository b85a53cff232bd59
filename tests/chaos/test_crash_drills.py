"""Crash drills (docs/reliability.md §1), short form: phases killed with SIGKILL at state
boundaries, rerun, invariants checked with SQL and against the raw store, and the
result compared with an uninterrupted run. `python -m chaos` runs every drill."""

from __future__ import annotations

from pathlib import Path

import pytest

from chaos.crash import DRILLS, PHASES, World, run_drill

# About a minute or two each (an uninterrupted reference run, shared by the drills of the
# same steps, and the drill, every phase a process): `make test` runs three boundaries,
# `python -m chaos` all of them.
SHORT = tuple(
    d
    for d in DRILLS
    if d.kill_at in ("raw:after_intent", "sync:before_verify", "cleanup:after_delete")
)


@pytest.fixture
def world(pg_server, templates, sandbox, tmp_path: Path) -> World:
    return World(pg_server.admin_url, templates, sandbox, tmp_path)


def _grouped(drill):
    """The drills of the five phases run on one worker: they share one reference run."""
    marks = [pytest.mark.xdist_group("crash_drills_phases")] if drill.steps == PHASES else []
    return pytest.param(drill, id=drill.kill_at, marks=marks)


@pytest.mark.parametrize("drill", [_grouped(d) for d in SHORT])
def test_a_phase_killed_at_a_state_boundary_recovers_on_rerun(world: World, drill) -> None:
    result = run_drill(world, drill)
    assert result.passed, result.detail
