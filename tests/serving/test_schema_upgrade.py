"""The serving schema's DDL step on a real database: what it applies again and what it
leaves alone, in what order, all or nothing, under one lock, and the web role's grants
through a function dropped and created again. Each test works on copies of the files."""

from __future__ import annotations

import shutil
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from pipeline.db.connect import Database
from serving_sync import schema
from serving_sync.definitions import MIGRATIONS_DIR, OBJECTS_DIR, SchemaError

MARK = "-- a comment that changes the checksum"
# The migrations this code has, and the version of one a test adds after them.
RELEASED = tuple(m.version for m in schema.migrations())
NEXT = RELEASED[-1] + 1


@dataclass(frozen=True)
class Tree:
    """A copy of the serving SQL that a test may change."""

    migrations: Path
    sql: Path

    def apply(self, db: Database) -> schema.UpgradeReport:
        return schema.apply(db, migrations_dir=self.migrations, objects_dir=self.sql)

    def write(self, path: str, text: str) -> None:
        (self.sql / path).write_text(text, "utf-8")

    def migration(self, name: str, text: str) -> None:
        (self.migrations / name).write_text(text, "utf-8")

    def edit(self, path: str, old: str, new: str) -> None:
        text = (self.sql / path).read_text("utf-8")
        assert old in text
        self.write(path, text.replace(old, new, 1))


@pytest.fixture
def tree(tmp_path) -> Tree:
    return Tree(
        Path(shutil.copytree(MIGRATIONS_DIR, tmp_path / "migrations")),
        Path(shutil.copytree(OBJECTS_DIR, tmp_path / "sql")),
    )


def _one(db: Database, query: str, *params: object) -> object:
    with db.connect() as conn:
        row = conn.execute(query, params).fetchone()
    return None if row is None else next(iter(row.values()))


def _versions_of_the_functions(db: Database) -> dict[str, str]:
    """Each serving function's row version: CREATE OR REPLACE writes a new one."""
    with db.connect() as conn:
        return {
            r["f"]: r["xmin"]
            for r in conn.execute(
                "SELECT oid::regprocedure::text AS f, xmin::text FROM pg_proc "
                "WHERE pronamespace = 'serving'::regnamespace"
            )
        }


def _applied_at(db: Database) -> dict[str, object]:
    with db.connect() as conn:
        return {
            r["file"]: r["applied_at"]
            for r in conn.execute("SELECT file, applied_at FROM serving.schema_objects")
        }


def _checksums(db: Database) -> dict[str, str]:
    with db.connect() as conn:
        return {
            r["file"]: r["checksum"]
            for r in conn.execute("SELECT file, checksum FROM serving.schema_objects")
        }


def test_a_second_upgrade_applies_nothing(empty_database, tree) -> None:
    first = tree.apply(empty_database)
    assert first.versions == RELEASED
    assert len(first.objects) == len(schema.objects(tree.sql))
    before = (_versions_of_the_functions(empty_database), _checksums(empty_database))
    assert tree.apply(empty_database) == schema.UpgradeReport((), ())
    assert (_versions_of_the_functions(empty_database), _checksums(empty_database)) == before


def test_a_changed_file_is_applied_again_after_what_it_needs_with_what_needs_it(
    empty_database, tree
) -> None:
    tree.apply(empty_database)
    before = _applied_at(empty_database)
    tree.edit("functions/prefix_words.sql", "    SELECT CASE", f"    {MARK}\n    SELECT CASE")
    applied = tree.apply(empty_database).objects
    assert applied[0] == "functions/prefix_words.sql"
    # What calls it, each after what it calls; then the grants. Nothing else.
    assert applied == (
        "functions/prefix_words.sql",
        "functions/prefix_as_words.sql",
        "functions/web_search.sql",
        "functions/web_company_listed.sql",
        "functions/web_page.sql",
        "functions/web_tsquery.sql",
        "functions/web_facet.sql",
        "functions/web_facet_bits.sql",
        "functions/web_facets_all.sql",
        "functions/refresh_facet_totals.sql",
        "grants/jobharbor_web.sql",
        "grants/large_objects.sql",
        "grants/public.sql",
        "grants/serving_database.sql",
    )
    assert MARK in _one(
        empty_database, "SELECT prosrc FROM pg_proc WHERE oid = 'serving.prefix_words'::regproc"
    )
    after = _applied_at(empty_database)
    assert {f for f in after if after[f] != before[f]} == set(applied)


def test_a_file_is_created_after_the_files_it_names_whatever_their_names(
    empty_database, tree
) -> None:
    tree.write(
        "functions/aa_answer.sql",
        "CREATE OR REPLACE FUNCTION serving.aa_answer() RETURNS integer\n"
        "LANGUAGE sql AS $$ SELECT serving.zz_almost() + 1 $$;\n",  # checked when created
    )
    tree.write(
        "functions/zz_almost.sql",
        "CREATE OR REPLACE FUNCTION serving.zz_almost() RETURNS integer LANGUAGE sql RETURN 41;\n",
    )
    applied = tree.apply(empty_database).objects
    assert applied.index("functions/zz_almost.sql") < applied.index("functions/aa_answer.sql")
    assert _one(empty_database, "SELECT serving.aa_answer()") == 42


def test_a_file_that_fails_leaves_every_definition_as_it_was(empty_database, tree) -> None:
    tree.apply(empty_database)
    before = _checksums(empty_database)
    tree.edit("functions/prefix_words.sql", "    SELECT CASE", f"    {MARK}\n    SELECT CASE")
    tree.migration(f"{NEXT:04d}_extra.sql", "CREATE TABLE serving.extra (id integer);\n")
    tree.write(
        "functions/zz_broken.sql",
        "CREATE OR REPLACE FUNCTION serving.zz_broken() RETURNS integer\n"
        "LANGUAGE sql AS $$ SELECT no_such_column FROM serving.jobs $$;\n",
    )
    with pytest.raises(SchemaError, match=r"^serving functions/zz_broken\.sql failed: .*no_such"):
        tree.apply(empty_database)
    assert MARK not in _one(
        empty_database, "SELECT prosrc FROM pg_proc WHERE oid = 'serving.prefix_words'::regproc"
    )
    assert _checksums(empty_database) == before
    assert _one(empty_database, "SELECT to_regclass('serving.extra')") is None
    assert schema.applied_versions(empty_database) == list(RELEASED)


def test_a_cycle_stops_the_upgrade_before_it_touches_the_database(empty_database, tree) -> None:
    tree.edit("functions/fold.sql", "RETURN CASE", "RETURN (SELECT serving.web_search) OR CASE")
    with pytest.raises(SchemaError, match=r"in a cycle: functions/fold\.sql -> "):
        tree.apply(empty_database)
    assert _one(empty_database, "SELECT to_regnamespace('serving')") is None


def test_a_database_older_than_the_baseline_is_refused(empty_database, tree) -> None:
    with empty_database.connect() as conn:
        conn.execute("CREATE SCHEMA serving")
        conn.execute("CREATE TABLE serving.schema_versions (version integer, name text)")
        conn.execute(
            "INSERT INTO serving.schema_versions SELECT v, 'x' FROM generate_series(1, 11) v"
        )
    with pytest.raises(SchemaError, match=r"^the serving schema is at version 11, older than"):
        tree.apply(empty_database)
    assert _one(empty_database, "SELECT to_regclass('serving.jobs')") is None


def test_a_database_migrated_by_newer_code_is_refused(empty_database, tree) -> None:
    tree.apply(empty_database)
    with empty_database.connect() as conn:
        conn.execute(
            "INSERT INTO serving.schema_versions (version, name) VALUES (%s, 'newer')", (NEXT,)
        )
    tree.edit("functions/prefix_words.sql", "    SELECT CASE", f"    {MARK}\n    SELECT CASE")
    with pytest.raises(SchemaError, match=rf"versions \[{NEXT}\] this code does not know"):
        tree.apply(empty_database)
    assert MARK not in _one(
        empty_database, "SELECT prosrc FROM pg_proc WHERE oid = 'serving.prefix_words'::regproc"
    )


def _waiting_for_the_lock(db: Database, sessions: int) -> bool:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        waiting = _one(
            db,
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND wait_event = 'advisory'",
        )
        if waiting == sessions:
            return True
        time.sleep(0.05)
    return False


def test_concurrent_upgrades_take_turns(empty_database, tree) -> None:
    reports: list[schema.UpgradeReport] = []
    errors: list[Exception] = []

    def upgrade() -> None:
        try:
            reports.append(tree.apply(empty_database))
        except Exception as exc:  # handed to the test's thread
            errors.append(exc)

    with psycopg.connect(empty_database.url, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(hashtextextended('jobharbor:serving:ddl', 0))")
        threads = [threading.Thread(target=upgrade) for _ in range(2)]
        for thread in threads:
            thread.start()
        assert _waiting_for_the_lock(empty_database, 2)
        assert _one(empty_database, "SELECT to_regnamespace('serving')") is None
        holder.execute("SELECT pg_advisory_unlock(hashtextextended('jobharbor:serving:ddl', 0))")
        for thread in threads:
            thread.join(timeout=60)
    assert errors == []
    assert sorted(r.versions for r in reports) == [(), RELEASED]
    assert sorted(len(r.objects) for r in reports) == [0, len(schema.objects(tree.sql))]


def _web_may_execute(db: Database, function: str) -> bool:
    return _one(db, "SELECT has_function_privilege('jobharbor_web', %s, 'EXECUTE')", function)


def test_the_web_role_keeps_its_grants_through_a_drop_and_create(empty_database, tree) -> None:
    tree.apply(empty_database)
    oid = _one(empty_database, "SELECT 'serving.web_job'::regproc::oid")
    tree.edit(
        "functions/web_job.sql",
        "CREATE OR REPLACE FUNCTION",
        "DROP FUNCTION IF EXISTS serving.web_job(bigint);\nCREATE FUNCTION",
    )
    applied = tree.apply(empty_database).objects
    assert "functions/web_job.sql" in applied
    assert "grants/jobharbor_web.sql" in applied
    assert _one(empty_database, "SELECT 'serving.web_job'::regproc::oid") != oid
    assert _web_may_execute(empty_database, "serving.web_job(bigint)")
    public = _one(
        empty_database,
        "SELECT count(*) FROM pg_proc, aclexplode(proacl) a "
        "WHERE oid = 'serving.web_job'::regproc AND a.grantee = 0",
    )
    assert public == 0
    assert not _web_may_execute(empty_database, "serving.prefix_words(text)")


def test_after_a_migration_every_file_is_applied_again(empty_database, tree) -> None:
    """A migration may drop what files define (here a trigger and a policy, as dropping
    and creating their table would): they are back in the same step."""
    tree.apply(empty_database)
    tree.migration(
        f"{NEXT:04d}_drop_what_files_define.sql",
        "DROP TRIGGER jobs_search_tsv ON serving.jobs;\n"
        "DROP POLICY jobs_web_read ON serving.jobs;\n",
    )
    report = tree.apply(empty_database)
    assert report.versions == (NEXT,)
    assert len(report.objects) == len(schema.objects(tree.sql))
    assert (
        _one(empty_database, "SELECT count(*) FROM pg_trigger WHERE tgname = 'jobs_search_tsv'")
        == 1
    )
    assert (
        _one(empty_database, "SELECT count(*) FROM pg_policies WHERE policyname = 'jobs_web_read'")
        == 1
    )


def test_a_deleted_file_is_forgotten_and_its_object_dropped_by_a_migration(
    empty_database, tree
) -> None:
    tree.apply(empty_database)
    (tree.sql / "functions" / "search_jobs.sql").unlink()
    tree.migration(
        f"{NEXT:04d}_no_search_jobs.sql", "DROP FUNCTION serving.search_jobs(text, integer);\n"
    )
    tree.apply(empty_database)
    assert "functions/search_jobs.sql" not in _checksums(empty_database)
    assert _one(empty_database, "SELECT to_regproc('serving.search_jobs')") is None


def test_the_bookkeeping_is_not_the_web_roles(empty_database, tree) -> None:
    tree.apply(empty_database)
    assert not _one(
        empty_database,
        "SELECT has_table_privilege('jobharbor_web', 'serving.schema_objects', 'SELECT')",
    )
    assert _one(
        empty_database,
        "SELECT relrowsecurity FROM pg_class WHERE oid = 'serving.schema_objects'::regclass",
    )


def _public_may_create_temporary_tables(db: Database) -> bool:
    return _one(db, "SELECT has_database_privilege('public', current_database(), 'TEMPORARY')")


def test_a_copy_of_the_database_gets_its_own_privileges_again(pg_server, templates) -> None:
    """CREATE DATABASE ... TEMPLATE copies the recorded checksums but not the database's
    privileges: the next upgrade sees PUBLIC's TEMPORARY back and applies that file again
    (with the grants), and after that, nothing."""
    name = f"jh_copy_{uuid.uuid4().hex[:10]}"
    copy = Database(pg_server.create(name, templates[1]))
    try:
        assert _public_may_create_temporary_tables(copy)
        report = schema.apply(copy)
        assert report.versions == ()
        assert report.objects == (
            "grants/jobharbor_web.sql",
            "grants/large_objects.sql",
            "grants/public.sql",
            schema.DATABASE_GRANTS,
        )
        assert not _public_may_create_temporary_tables(copy)
        assert schema.apply(copy) == schema.UpgradeReport((), ())
    finally:
        pg_server.drop(name)
