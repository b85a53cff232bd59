"""A task's migrations check finds the head revision from the revision files' own
assignments (no Alembic import in every task), and leaves any chain it cannot read that
way to Alembic."""

from __future__ import annotations

from pathlib import Path

from pipeline.db import migrate
from pipeline.db.ready import declared_head, head_revision


def revision_file(versions: Path, own: str, parent: str) -> None:
    (versions / f"{own}.py").write_text(
        f'"""{own}"""\n\nrevision: str = "{own}"\ndown_revision = {parent}\n'
    )


def test_the_declared_head_is_the_head_alembic_finds() -> None:
    assert declared_head() == migrate.head_revision()
    assert head_revision() == migrate.head_revision()


def test_a_plain_chain_has_its_last_revision_as_head(tmp_path: Path) -> None:
    revision_file(tmp_path, "first", "None")
    revision_file(tmp_path, "second", "'first'")
    revision_file(tmp_path, "third", '"second"')
    assert declared_head(tmp_path) == "third"


def test_a_merge_or_two_heads_is_left_to_alembic(tmp_path: Path) -> None:
    revision_file(tmp_path, "first", "None")
    revision_file(tmp_path, "left", '"first"')
    revision_file(tmp_path, "right", '"first"')
    assert declared_head(tmp_path) is None  # two heads
    revision_file(tmp_path, "merged", '("left", "right")')
    assert declared_head(tmp_path) is None  # a merge names two parents


def test_a_revision_file_without_a_literal_name_is_left_to_alembic(tmp_path: Path) -> None:
    revision_file(tmp_path, "first", "None")
    (tmp_path / "odd.py").write_text('revision = make_id()\ndown_revision = "first"\n')
    assert declared_head(tmp_path) is None
