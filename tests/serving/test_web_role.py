"""The web role's limits on the real serving database: it reads only through the
search functions, cannot write (temporary tables included), cannot read outside serving
nor log in to the authoritative database, and is timed out."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import conninfo, sql
from psycopg.rows import dict_row

from pipeline.db.connect import Database
from serving_sync import roles, search
from serving_sync.search import SearchRequest
from tests.conftest import TestDatabases, both_layouts
from tests.serving.conftest import WEB_PASSWORD


@pytest.mark.parametrize(
    "table", ["jobs", "closed_jobs", "sync_runs", "schema_versions", "freshness", "lexicon"]
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
    from pipeline.commands.setup import setup_databases

    roles.provision_web_role(databases.serving, WEB_PASSWORD)
    known = _verifier(databases.serving)
    setup_databases(databases.db, databases.serving)  # no variable: left alone
    assert _verifier(databases.serving) == known
    monkeypatch.setenv(roles.PASSWORD_ENV, "from-the-environment")
    setup_databases(databases.db, databases.serving)
    changed = _verifier(databases.serving)
    assert changed.startswith("SCRAM-SHA-256$")
    assert changed != known


# ---------------------------------------------------------------- web security (docs/reliability.md §6), each proven

# What the web role may execute in serving: the web_* read functions (and fold).
SOME_WEB_FUNCTIONS = {"web_search", "web_facet", "web_job", "web_last_sync", "web_freshness"}


def test_every_function_the_web_role_may_call_is_a_read_only_one(serving) -> None:
    with psycopg.connect(serving.url) as owner:
        rows = owner.execute(
            """SELECT p.proname, p.provolatile FROM pg_proc p
               JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname = 'serving'
                 AND has_function_privilege('jobharbor_web', p.oid, 'EXECUTE')"""
        ).fetchall()
    names = {name for name, _ in rows}
    assert names >= SOME_WEB_FUNCTIONS
    assert [n for n in names if not n.startswith("web_") and n != "fold"] == []
    # STABLE or IMMUTABLE: PostgreSQL refuses any write inside them, SECURITY DEFINER or not.
    assert [name for name, volatility in rows if volatility == "v"] == []


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT lo_create(0)",  # a large object is a write
        "SELECT nextval('serving.sync_runs_id_seq')",
        "SELECT serving.job_fingerprint(NULL)",  # the sync's helper, not the web's
        "SELECT * FROM serving.search_jobs('x', 1)",
        "COPY (SELECT 1) TO '/tmp/jobharbor-web-copy'",
        "COPY (SELECT 1) TO PROGRAM 'true'",
        "SELECT lo_from_bytea(0, 'x')",
    ],
)
def test_the_web_role_cannot_call_anything_that_writes(seeded, web_conn, statement) -> None:
    web_conn.execute("SET default_transaction_read_only = off")  # even so
    with pytest.raises(
        (
            psycopg.errors.InsufficientPrivilege,
            psycopg.errors.ReadOnlySqlTransaction,
            psycopg.errors.UndefinedFunction,
        )
    ):
        web_conn.execute(statement)


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT serving.web_where()",
        "SELECT serving.web_match(NULL, NULL)",
        "SELECT serving.web_join_lexemes(NULL, NULL)",
        "SELECT serving.web_unfiltered(NULL)",
        "SELECT serving.web_tsquery('engin', true)",  # would list the lexicon
    ],
)
def test_the_web_role_cannot_call_the_helpers_of_the_search_functions(
    seeded, web_conn, statement
) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        web_conn.execute(statement)


def test_the_filters_type_is_no_ones_to_build_on_but_a_call_may_cast_to_it(
    seeded, web_conn
) -> None:
    usage = "SELECT has_type_privilege(%s, 'serving.web_filter', 'USAGE')"
    assert web_conn.execute(usage, ("jobharbor_web",)).fetchone() == {"has_type_privilege": False}
    web_conn.execute("SET default_transaction_read_only = off")  # the privilege is what stops it
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        web_conn.execute("CREATE TEMPORARY TABLE mine (f serving.web_filter)")
    assert len(search.search(web_conn, SearchRequest(limit=3)).items) == 3


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT rolpassword FROM pg_authid",
        "SELECT passwd FROM pg_shadow",
        "SELECT pg_read_file('/etc/passwd')",
        "SELECT pg_ls_dir('.')",
        "SELECT * FROM pg_largeobject",
        "SELECT * FROM pg_statistic",
    ],
)
def test_the_web_role_cannot_read_protected_catalog_data(web_conn, statement) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        web_conn.execute(statement)


def test_the_web_role_cannot_end_or_signal_another_session(serving, web_conn) -> None:
    with psycopg.connect(serving.url) as owner:
        for call in ("pg_terminate_backend", "pg_cancel_backend"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                web_conn.execute(f"SELECT {call}(%s)", (owner.info.backend_pid,))
        assert owner.execute("SELECT 1").fetchone() == (1,)


def test_the_web_role_sees_no_other_sessions_queries(serving, web_conn) -> None:
    with psycopg.connect(serving.url) as owner:
        owner.execute("SELECT 'owner-secret-query' AS marker")
        owner_pid = owner.info.backend_pid
        seen = web_conn.execute(
            "SELECT query FROM pg_stat_activity WHERE pid = %s", (owner_pid,)
        ).fetchone()
    assert seen == {"query": "<insufficient privilege>"}


# ---------------------------------------------------------------- the databases the web role reaches

AUTHORITATIVE_TABLES = ("core.postings", "crawl.raw_objects", "ref.sources", "crawl.runs")


def _privileges(db: Database, role: str) -> dict[str, bool]:
    with db.connect() as conn:
        return conn.execute(
            "SELECT has_database_privilege(%s, current_database(), 'CONNECT') AS connect, "
            "has_database_privilege(%s, current_database(), 'TEMPORARY') AS temporary",
            (role, role),
        ).fetchone()


def test_the_web_role_cannot_create_a_temporary_table_even_read_write(web_conn) -> None:
    """PUBLIC's TEMPORARY on the serving database is revoked: a read-write transaction
    cannot write a temporary table either."""
    web_conn.execute("SET default_transaction_read_only = off")
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as refused:
        web_conn.execute("CREATE TEMP TABLE t (x int)")
    assert refused.value.sqlstate == "42501"
    assert "permission denied to create temporary tables" in str(refused.value)


def test_the_serving_database_gives_the_web_role_connect_by_name_and_temporary_to_no_one_else(
    serving,
) -> None:
    with serving.connect() as conn:
        owner = conn.execute("SELECT current_user AS u").fetchone()["u"]
        acl = conn.execute(
            "SELECT datacl::text[] AS acl FROM pg_database WHERE datname = current_database()"
        ).fetchone()["acl"]
    assert _privileges(serving, "public") == {"connect": True, "temporary": False}
    assert _privileges(serving, roles.WEB_ROLE) == {"connect": True, "temporary": False}
    assert _privileges(serving, owner) == {"connect": True, "temporary": True}
    assert [a for a in acl if a.startswith(f"{roles.WEB_ROLE}=")] == [f"{roles.WEB_ROLE}=c/{owner}"]


def _role_exists(db: Database, role: str) -> bool:
    with db.connect() as conn:
        return conn.execute("SELECT to_regrole(%s) IS NOT NULL AS e", (role,)).fetchone()["e"]


@both_layouts
def test_the_web_role_cannot_connect_to_the_authoritative_database(
    databases: TestDatabases,
) -> None:
    roles.provision_web_role(databases.serving, WEB_PASSWORD)
    assert _privileges(databases.db, "public")["connect"] is False
    # Separate clusters: the role is the serving cluster's alone; one cluster: it exists
    # there, and the authoritative database refuses it CONNECT.
    refusal = "does not exist" if databases.separate else "permission denied for database"
    with pytest.raises(psycopg.OperationalError, match=refusal):
        psycopg.connect(roles.reader_url(databases.db.url, WEB_PASSWORD)).close()
    assert _role_exists(databases.db, roles.WEB_ROLE) is not databases.separate
    assert _role_exists(databases.serving, roles.WEB_ROLE)
    # The platform's own role still connects.
    with databases.db.connect() as conn:
        assert conn.execute("SELECT count(*) AS n FROM core.postings").fetchone() == {"n": 0}


# One cluster only: on another the web role does not exist, so it has no grant to take.
@pytest.mark.parametrize("databases", ["shared"], indirect=True)
def test_closing_the_authoritative_database_takes_the_web_roles_own_grant_too(
    databases: TestDatabases,
) -> None:
    with databases.db.connect() as conn:
        name = sql.Identifier(conn.info.dbname)
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO jobharbor_web").format(name))
    assert _privileges(databases.db, roles.WEB_ROLE)["connect"] is True
    assert roles.close_authoritative_database(databases.db, databases.serving) is True
    assert _privileges(databases.db, roles.WEB_ROLE)["connect"] is False


@both_layouts
def test_the_sync_stages_in_temporary_tables_and_the_web_role_reads_after_the_revokes(
    seed, databases
) -> None:
    assert _privileges(databases.serving, "public")["temporary"] is False
    assert _privileges(databases.db, "public")["connect"] is False
    seed.postings(3)
    assert seed.sync().inserted == 3
    roles.provision_web_role(databases.serving, WEB_PASSWORD)
    with psycopg.connect(
        roles.reader_url(databases.serving.url, WEB_PASSWORD), row_factory=dict_row
    ) as web:
        assert len(search.search(web, SearchRequest(limit=5)).items) == 3
        assert len(web.execute("SELECT * FROM serving.web_last_sync()").fetchall()) == 1


@pytest.fixture
def one_database(pg_server, templates) -> Iterator[Database]:
    """The authoritative schemas and serving in one database (JOBHARBOR_DATABASE_URL
    without JOBHARBOR_SERVING_DATABASE_URL), a fresh copy with PostgreSQL's defaults."""
    name = f"jh_one_{uuid.uuid4().hex[:10]}"
    try:
        yield Database(pg_server.create(name, templates[0]))
    finally:
        pg_server.drop(name)


def test_with_both_schemas_in_one_database_the_web_role_connects_there_but_not_to_core(
    one_database, monkeypatch
) -> None:
    from pipeline.commands.setup import setup_databases

    monkeypatch.setenv(roles.PASSWORD_ENV, WEB_PASSWORD)
    setup_databases(one_database, one_database)
    # CONNECT is not taken from PUBLIC here, nor from the web role: this is its database.
    assert roles.close_authoritative_database(one_database, one_database) is False
    assert _privileges(one_database, "public") == {"connect": True, "temporary": False}
    with psycopg.connect(
        roles.reader_url(one_database.url, WEB_PASSWORD), autocommit=True, row_factory=dict_row
    ) as web:
        assert web.execute("SELECT * FROM serving.web_last_sync()").fetchall() == []  # no sync yet
        for table in AUTHORITATIVE_TABLES:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                web.execute(f"SELECT * FROM {table} LIMIT 1")
        web.execute("SET default_transaction_read_only = off")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            web.execute("CREATE TEMP TABLE t (x int)")


@pytest.fixture
def stranger(pg_server) -> Iterator[str]:
    """A login role of the cluster that owns no database."""
    name = f"jh_stranger_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_server.admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE ROLE "{name}" LOGIN')
    try:
        yield name
    finally:
        with psycopg.connect(pg_server.admin_url, autocommit=True) as admin:
            admin.execute(f'DROP ROLE "{name}"')


def _as(db: Database, role: str) -> Database:
    return Database(conninfo.make_conninfo(db.url, user=role))


def test_a_non_superuser_owner_closes_the_authoritative_database_and_keeps_connect(
    stranger, empty_database, serving
) -> None:
    with empty_database.connect(autocommit=True) as conn:
        conn.execute(
            sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
                sql.Identifier(conn.info.dbname), sql.Identifier(stranger)
            )
        )
    owner = _as(empty_database, stranger)
    assert roles.close_authoritative_database(owner, serving) is True
    assert _privileges(empty_database, "public")["connect"] is False
    with owner.connect() as conn:
        assert conn.execute("SELECT current_user AS u").fetchone() == {"u": stranger}


def test_a_role_that_cannot_close_the_authoritative_database_says_so(
    stranger, empty_database, serving, caplog
) -> None:
    with caplog.at_level(logging.WARNING, logger="jobharbor"):
        roles.close_authoritative_database(_as(empty_database, stranger), serving)
    assert _privileges(empty_database, "public")["connect"] is True
    assert "PUBLIC can still connect to the authoritative database" in caplog.text


def _search_args(page_rows: int) -> tuple:
    from serving_sync.search import Filters, filter_args

    return (*filter_args(Filters()), "newest", None, None, None, page_rows, 1000)


@pytest.mark.parametrize("page_rows", [0, 52, 1_000_000])
def test_a_page_size_over_the_bound_is_refused_by_the_sql_function(
    seeded, web_conn, page_rows
) -> None:
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="page_rows"):
        web_conn.execute(search.SEARCH_SQL, _search_args(page_rows))
    assert len(web_conn.execute(search.SEARCH_SQL, _search_args(51)).fetchall()) == 51


def test_a_search_over_the_statement_timeout_is_cancelled(seeded, web_conn) -> None:
    """Not only pg_sleep: a real read through a search function is cut off too."""
    web_conn.execute("SET statement_timeout = '200ms'")  # the role's 3s, shortened for speed
    started = time.monotonic()
    with pytest.raises(psycopg.errors.QueryCanceled):
        web_conn.execute(
            "SELECT count(serving.fold('Kế toán ' || g)) FROM generate_series(1, 100000000) g"
        )
    assert time.monotonic() - started < 3


def test_a_transaction_left_idle_is_killed(web_url) -> None:
    conn = psycopg.connect(web_url)  # not autocommit: the first statement opens a transaction
    try:
        conn.execute("SET idle_in_transaction_session_timeout = '300ms'")  # the role's 10s, faster
        conn.execute("SELECT 1")
        time.sleep(1.0)
        with pytest.raises(psycopg.Error, match="idle-in-transaction"):
            conn.execute("SELECT 1")
    finally:
        conn.close()


def test_the_roles_own_idle_timeout_kills_a_forgotten_transaction(web_url) -> None:
    """The role's setting itself (10s), not a session's: one slow test."""
    conn = psycopg.connect(web_url)
    try:
        conn.execute("SELECT 1")
        time.sleep(11)
        with pytest.raises(psycopg.Error, match="idle-in-transaction"):
            conn.execute("SELECT 1")
    finally:
        conn.close()


def test_the_connection_limit_holds(seeded, web_url) -> None:
    opened = []
    try:
        for _ in range(20):
            opened.append(psycopg.connect(web_url, autocommit=True))
        with pytest.raises(psycopg.OperationalError, match="too many connections"):
            psycopg.connect(web_url, autocommit=True)
    finally:
        for conn in opened:
            conn.close()
