"""The web role's limits on the real serving database: it reads only through the
search functions, cannot write, cannot read outside serving, and is timed out."""

from __future__ import annotations

import time

import psycopg
import pytest

from serving_sync import roles, search
from serving_sync.search import SearchRequest
from tests.serving.conftest import WEB_PASSWORD


@pytest.mark.parametrize(
    "table", ["jobs", "closed_jobs", "sync_runs", "schema_versions", "freshness"]
)
def test_the_web_role_cannot_read_serving_tables_directly(seeded, web_conn, table) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        web_conn.execute(f"SELECT * FROM serving.{table} LIMIT 1")


def test_the_web_role_reads_through_the_functions(seeded, web_conn) -> None:
    assert len(search.search(web_conn, SearchRequest(limit=5)).items) == 5
    assert search.job(web_conn, seeded[0]["id"])["title"] == seeded[0]["title"]
    assert search.closed_job(web_conn, 999)["reason"] == "expired"


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO serving.jobs (id) VALUES (1)",
        "UPDATE serving.jobs SET title = 'x'",
        "DELETE FROM serving.closed_jobs",
        "CREATE TABLE serving.mine (x int)",
        "CREATE TABLE public.mine (x int)",
    ],
)
def test_the_web_role_cannot_write(seeded, web_conn, statement) -> None:
    with pytest.raises(
        (psycopg.errors.InsufficientPrivilege, psycopg.errors.ReadOnlySqlTransaction)
    ):
        web_conn.execute(statement)


def test_even_a_read_write_transaction_cannot_write(seeded, web_conn) -> None:
    web_conn.execute("SET default_transaction_read_only = off")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        web_conn.execute("UPDATE serving.jobs SET title = 'x'")


def test_the_web_role_cannot_read_outside_serving(serving, web_conn) -> None:
    with psycopg.connect(serving.url) as owner:
        owner.execute("CREATE SCHEMA core")
        owner.execute("CREATE TABLE core.postings AS SELECT 1 AS id")
        owner.execute("CREATE TABLE public.secrets AS SELECT 'x' AS value")
    for table in ("core.postings", "public.secrets"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            web_conn.execute(f"SELECT * FROM {table}")


def test_the_web_role_is_timed_out(web_conn) -> None:
    settings = {
        name: web_conn.execute(f"SHOW {name}").fetchone()[name]
        for name in ("statement_timeout", "idle_in_transaction_session_timeout")
    }
    assert settings == {"statement_timeout": "3s", "idle_in_transaction_session_timeout": "10s"}
    started = time.monotonic()
    with pytest.raises(psycopg.errors.QueryCanceled):
        web_conn.execute("SELECT pg_sleep(10)")
    assert time.monotonic() - started < 6


def test_the_web_role_has_a_connection_limit(web_conn) -> None:
    row = web_conn.execute(
        "SELECT rolconnlimit, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user"
    ).fetchone()
    assert row == {
        "rolconnlimit": 20,
        "rolsuper": False,
        "rolcreaterole": False,
        "rolcreatedb": False,
    }


def test_every_serving_table_has_row_level_security(serving) -> None:
    with psycopg.connect(serving.url) as owner:
        tables = owner.execute(
            """SELECT c.relname, c.relrowsecurity FROM pg_class c
               JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = 'serving' AND c.relkind IN ('r', 'p')"""
        ).fetchall()
    assert tables
    assert [name for name, rls in tables if not rls] == []


def _verifier(serving) -> str:
    with psycopg.connect(serving.url) as owner:
        return owner.execute(
            "SELECT rolpassword FROM pg_authid WHERE rolname = 'jobharbor_web'"
        ).fetchone()[0]


def test_db_up_sets_the_password_from_the_environment_only(databases, monkeypatch) -> None:
    from pipeline.db.setup import setup_databases

    roles.provision_web_role(databases.serving, WEB_PASSWORD)
    known = _verifier(databases.serving)
    setup_databases(databases.db, databases.serving)  # no variable: left alone
    assert _verifier(databases.serving) == known
    monkeypatch.setenv(roles.PASSWORD_ENV, "from-the-environment")
    setup_databases(databases.db, databases.serving)
    changed = _verifier(databases.serving)
    assert changed.startswith("SCRAM-SHA-256$")
    assert changed != known
