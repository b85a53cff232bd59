"""A backfill preview that selects nothing says why, and its run goes no further: no
approval is asked for an apply that would change nothing."""

from __future__ import annotations

from pipeline.airflow.backfill import gates_after_plan
from pipeline.backfill.manifest import Item, Manifest
from pipeline.backfill.reparse import why_nothing_to_reparse

PLANNED = {"manifest": "m.json", "summary": "reparse backfill: 3 items", "nothing_to_apply": None}
EMPTY = PLANNED | {"nothing_to_apply": "0 postings to re-parse: all 12 matching postings ..."}


def test_a_reparse_preview_that_found_nothing_says_what_it_found_instead() -> None:
    assert why_nothing_to_reparse(12, "greenhouse", "greenhouse@3") == (
        "0 postings to re-parse: all 12 matching postings are already at parser greenhouse@3"
    )
    assert why_nothing_to_reparse(1, "lever", "lever@1") == (
        "0 postings to re-parse: the 1 matching posting is already at parser lever@1"
    )
    assert why_nothing_to_reparse(0, "lever", "lever@1") == (
        "0 postings to re-parse: no posting of lever with stored content matches"
    )


def test_an_empty_manifest_has_nothing_to_apply_and_says_why() -> None:
    empty = Manifest(kind="check", params={}, items=())
    assert empty.nothing_to_apply() == "the check preview selected no items"
    assert Manifest("reparse", {}, (), why_empty="none").nothing_to_apply() == "none"
    assert Manifest("reparse", {}, (Item(1, "ab"),)).nothing_to_apply() is None


def test_only_a_plan_with_items_reaches_a_gate_before_apply() -> None:
    apply = {"dry_run": False, "approve": True}
    assert gates_after_plan(apply, PLANNED) == ["approval"]  # as before
    assert gates_after_plan(apply | {"approve": False}, PLANNED) == ["no_approval"]
    assert gates_after_plan(apply, EMPTY) == []  # approval and apply are skipped
    assert gates_after_plan({"dry_run": True}, PLANNED) == []  # a preview ends at plan
