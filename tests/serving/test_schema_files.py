"""The serving SQL as files, without a database: one object per file, the order from
the names they mention, what an upgrade applies, and the versions it accepts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serving_sync import definitions
from serving_sync.definitions import (
    BASELINE,
    Migration,
    SchemaError,
    SqlObject,
    migrations,
    objects,
    ordered,
    pending_migrations,
    plan,
)

# What a file of each kind defines, named after the file.
_DEFINES = {
    "functions": r"CREATE OR REPLACE FUNCTION serving\.(\w+)\(",
    "triggers": r"CREATE OR REPLACE TRIGGER (\w+) ",
    "policies": r"CREATE POLICY (\w+) ",
    "roles": r"CREATE ROLE (\w+) ",
}


def _object(path: str, *requires: str) -> SqlObject:
    kind, name = path.removesuffix(".sql").split("/")
    return SqlObject(path, kind, name, f"-- {path}", frozenset(requires))


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, "utf-8")
    return root


@pytest.mark.parametrize("kind", sorted(_DEFINES))
def test_each_file_defines_the_one_object_it_is_named_after(kind) -> None:
    for path in sorted((definitions.OBJECTS_DIR / kind).glob("*.sql")):
        defined = re.findall(_DEFINES[kind], path.read_text("utf-8"))
        assert defined == [path.stem], path


def test_no_object_is_defined_twice_across_the_files() -> None:
    text = "\n".join(p.read_text("utf-8") for p in definitions.OBJECTS_DIR.rglob("*.sql"))
    text += (definitions.MIGRATIONS_DIR / "0013_baseline.sql").read_text("utf-8")
    created = re.findall(r"CREATE (?:OR REPLACE )?FUNCTION serving\.(\w+)\(", text)
    assert sorted(set(created)) == sorted(created)
    assert len(created) == 78


def test_the_sql_says_why_not_when() -> None:
    history = re.compile(r"\b(issue \d+|stop \d+|v\d+\b|DDL \d+)", re.IGNORECASE)
    for path in [*definitions.OBJECTS_DIR.rglob("*.sql"), *definitions.MIGRATIONS_DIR.glob("*")]:
        assert not history.findall(path.read_text("utf-8")), path


def test_every_file_comes_after_the_files_it_names() -> None:
    found = objects()
    place = {o.path: i for i, o in enumerate(found)}
    for o in found:
        assert all(place[r] < place[o.path] for r in o.requires), o.path
    web_search = next(o for o in found if o.path == "functions/web_search.sql")
    assert {"functions/web_where.sql", "functions/typed_tsquery.sql"} <= web_search.requires
    assert found[0].path == "roles/jobharbor_web.sql"
    assert [o.kind for o in found[-3:]] == ["grants"] * 3


def test_names_in_comments_are_no_references(tmp_path) -> None:
    root = _write(
        tmp_path,
        {
            "functions/a.sql": "-- like serving.b\nCREATE OR REPLACE FUNCTION serving.a() ...",
            "functions/b.sql": "CREATE OR REPLACE FUNCTION serving.b() ... serving.a() ...",
            "functions/b_longer.sql": "CREATE OR REPLACE FUNCTION serving.b_longer() ...",
            "grants/web.sql": "GRANT EXECUTE ON FUNCTION serving.b_longer TO jobharbor_web;",
        },
    )
    found = {o.path: o.requires for o in objects(root)}
    assert found == {
        "functions/a.sql": frozenset(),
        "functions/b.sql": {"functions/a.sql"},
        "functions/b_longer.sql": frozenset(),
        "grants/web.sql": {"functions/b_longer.sql"},
    }


def test_files_are_ordered_by_reference_then_kind_then_name() -> None:
    found = ordered(
        [
            _object("grants/web.sql", "functions/a.sql"),
            _object("functions/a.sql", "functions/z.sql"),
            _object("functions/z.sql"),
            _object("triggers/t.sql", "functions/a.sql"),
            _object("roles/r.sql"),
        ]
    )
    assert [o.path for o in found] == [
        "roles/r.sql",
        "functions/z.sql",
        "functions/a.sql",
        "triggers/t.sql",
        "grants/web.sql",
    ]


def test_a_cycle_is_an_error_that_names_its_files(tmp_path) -> None:
    root = _write(
        tmp_path,
        {
            "functions/first.sql": "SELECT serving.second();",
            "functions/second.sql": "SELECT serving.third();",
            "functions/third.sql": "SELECT serving.first();",
            "functions/outside.sql": "SELECT serving.first();",
        },
    )
    with pytest.raises(SchemaError) as raised:
        objects(root)
    assert str(raised.value) == (
        "serving SQL files refer to each other in a cycle: functions/first.sql -> "
        "functions/second.sql -> functions/third.sql -> functions/first.sql"
    )


@pytest.mark.parametrize(
    ("files", "error"),
    [
        ({"tables/x.sql": ""}, "serving SQL tables: not one of the folders"),
        ({"functions/Web Search.sql": ""}, "serving SQL functions/Web Search.sql is not named"),
        (
            {"functions/x.sql": "", "views/x.sql": ""},
            "serving SQL functions/x.sql and views/x.sql both define serving.x",
        ),
    ],
)
def test_files_out_of_place_are_errors(tmp_path, files, error) -> None:
    with pytest.raises(SchemaError, match=re.escape(error)):
        objects(_write(tmp_path, files))


def test_an_upgrade_applies_what_changed_what_refers_to_it_and_the_grants() -> None:
    found = ordered(
        [
            _object("functions/base.sql"),
            _object("functions/uses_base.sql", "functions/base.sql"),
            _object("functions/uses_that.sql", "functions/uses_base.sql"),
            _object("functions/alone.sql"),
            _object("triggers/on_base.sql", "functions/base.sql"),
            _object("policies/read.sql"),
            _object("grants/web.sql"),
        ]
    )
    current = {o.path: o.checksum for o in found}
    assert plan(found, current, migrated=False) == []
    assert [o.path for o in plan(found, {**current, "functions/base.sql": "old"}, False)] == [
        "functions/base.sql",
        "functions/uses_base.sql",
        "functions/uses_that.sql",
        "triggers/on_base.sql",
        "grants/web.sql",
    ]
    assert [o.path for o in plan(found, {**current, "policies/read.sql": "old"}, False)] == [
        "policies/read.sql",
        "grants/web.sql",
    ]
    assert plan(found, current, migrated=True) == found
    assert plan(found, {}, migrated=False) == found


def _migration(version: int) -> Migration:
    return Migration(version, f"m{version}", "")


@pytest.mark.parametrize(
    ("recorded", "pending"),
    [
        ([], [13, 14]),
        (list(range(1, 14)), [14]),  # built by the numbered files it replaced
        ([13], [14]),
        ([13, 14], []),
    ],
)
def test_the_versions_an_upgrade_starts_from(recorded, pending) -> None:
    found = [_migration(13), _migration(14)]
    assert [m.version for m in pending_migrations(found, recorded)] == pending


def test_a_database_older_than_the_baseline_is_refused_with_what_to_do() -> None:
    with pytest.raises(SchemaError) as raised:
        pending_migrations([_migration(BASELINE)], list(range(1, 12)))
    message = str(raised.value)
    assert message.startswith("the serving schema is at version 11, older than the oldest")
    assert "commit 5babc43" in message
    assert "`jobharbor sync --full`" in message


def test_a_database_migrated_by_newer_code_is_refused() -> None:
    with pytest.raises(SchemaError, match=r"versions \[15\] this code does not know"):
        pending_migrations([_migration(13), _migration(14)], [13, 14, 15])


@pytest.mark.parametrize(
    ("names", "error"),
    [
        (["0013_a.sql", "0015_b.sql"], "numbered 13..N without gaps, found [13, 15]"),
        (["0001_a.sql"], "numbered 13..N without gaps, found [1]"),
        (["0013_a.sql", "14_b.sql"], "14_b.sql is not named NNNN_name.sql"),
    ],
)
def test_migrations_are_numbered_from_the_baseline_without_gaps(tmp_path, names, error) -> None:
    for name in names:
        (tmp_path / name).write_text("SELECT 1;", "utf-8")
    with pytest.raises(SchemaError, match=re.escape(error)):
        migrations(tmp_path)


def test_the_fold_table_is_filled_in_and_part_of_the_checksum() -> None:
    fold = next(o for o in objects() if o.path == "functions/fold.sql")
    assert "{{FOLD_FROM}}" not in fold.sql
    assert "'àÀáÁ" in fold.sql
