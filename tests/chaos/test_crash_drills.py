"""Crash drills (docs/reliability.md §1), short form: phases killed with SIGKILL at state
boundaries, rerun, invariants checked with SQL and against the raw store, and the
result compared with an uninterrupted run. `python -m chaos` runs every drill."""

from __future__ import annotations

from pathlib import Path

import pytest

from chaos.crash import DRILLS, World, run_drill

# About a minute or two each (an uninterrupted reference run, shared by the drills of the
# same steps that run in one process, and the drill, every phase a process): `make test`
# runs three boundaries on whichever workers are free (grouped on one worker, two of them
# made a 360 s chain), `python -m chaos` all of them.
SHORT = tuple(
    d
    for d in DRILLS
    if d.kill_at in ("raw:after_intent", "sync:before_verify", "cleanup:after_delete")
)


@pytest.fixture
def world(pg_server, templates, sandbox, tmp_path: Path) -> World:
    return World(pg_server.admin_url, templates, sandbox, tmp_path)


@pytest.mark.parametrize("drill", SHORT, ids=[d.kill_at for d in SHORT])
def test_a_phase_killed_at_a_state_boundary_recovers_on_rerun(world: World, drill) -> None:
    result = run_drill(world, drill)
    assert result.passed, result.detail
