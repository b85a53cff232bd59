"""One work mode: the posting's field over the location text over a description excerpt."""

from __future__ import annotations

import pytest

from pipeline.normalize.work_mode import REMOTE_ALIAS, WORK_MODES, WorkMode, work_mode

CASES = {
    # (field, location, described) -> (value, source)
    ("yes", "hybrid", "onsite"): ("remote", "field"),
    ("hybrid", "yes", "remote"): ("hybrid", "field"),
    ("unknown", "hybrid", "remote"): ("hybrid", "location"),
    (None, "yes", "onsite"): ("remote", "location"),
    ("unknown", "unknown", "onsite"): ("onsite", "description"),
    ("unknown", None, "hybrid"): ("hybrid", "description"),
    (None, None, "remote"): ("remote", "description"),
    ("unknown", "unknown", None): ("unknown", None),
    (None, None, "unknown"): ("unknown", None),
    ("no", "no", "sometimes"): ("unknown", None),  # nobody's value: not a guess
}


@pytest.mark.parametrize("given", CASES, ids=[str(c) for c in CASES])
def test_the_precedence(given: tuple[str | None, str | None, str | None]) -> None:
    assert work_mode(*given) == WorkMode(*CASES[given])


def test_the_remote_alias_names_only_work_modes() -> None:
    assert set(REMOTE_ALIAS.values()) <= set(WORK_MODES)
    assert (REMOTE_ALIAS["yes"], REMOTE_ALIAS["hybrid"], REMOTE_ALIAS["unknown"]) == (
        "remote", "hybrid", "unknown",
    )  # fmt: skip
