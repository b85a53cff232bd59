"""What a serving database is, read from its catalog, to compare two builds: functions,
tables and their columns, types, indexes, triggers, policies, privileges (owner-independent:
the owner is `OWNER`, PUBLIC is `PUBLIC`), row level security, the web role's settings,
and how many rows each table holds. Also the serving schema as it was before the files
under serving_sync/sql/ (legacy/serving_v13.sql.gz, see legacy/README.md)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

LEGACY_DUMP = Path(__file__).parent / "legacy" / "serving_v13.sql.gz"
# Bookkeeping that differs by construction: the legacy build recorded versions 1..13.
_NOT_COUNTED = ("schema_versions",)


def _acl(owner: str, acl: str, kind: str | None) -> str:
    """The privileges as sorted `grantee=privilege/grantor` items; NULL is the default."""
    acl = acl if kind is None else f"coalesce({acl}, acldefault({kind}, {owner}))"
    return f"""
    SELECT coalesce(array_agg(x ORDER BY x), '{{}}') FROM (
        SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' WHEN a.grantee = {owner} THEN 'OWNER'
                    ELSE pg_get_userbyid(a.grantee) END
               || '=' || a.privilege_type || CASE WHEN a.is_grantable THEN '*' ELSE '' END
               || '/' || CASE WHEN a.grantor = {owner} THEN 'OWNER'
                              ELSE pg_get_userbyid(a.grantor) END AS x
        FROM aclexplode({acl}) a) AS items"""


_FUNCTIONS = f"""
    SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS key,
           pg_get_function_result(p.oid) AS result, l.lanname AS language, p.prokind AS kind,
           coalesce(nullif(p.prosrc, ''), pg_get_function_sqlbody(p.oid)) AS body,
           p.proconfig AS config, p.provolatile AS volatility, p.proisstrict AS strict,
           p.prosecdef AS security_definer, p.proparallel AS parallel,
           p.proleakproof AS leakproof, p.procost AS cost, p.prorows AS rows,
           pg_get_expr(p.proargdefaults, 0) AS defaults,
           ({_acl("p.proowner", "p.proacl", "'f'")}) AS acl
    FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
    WHERE p.pronamespace = 'serving'::regnamespace
"""

_RELATION_KIND = "CASE c.relkind WHEN 'S' THEN 's' ELSE 'r' END::\"char\""
_RELATIONS = f"""
    SELECT c.relname AS key, c.relkind AS kind, c.relrowsecurity AS rls,
           c.relforcerowsecurity AS force_rls, c.reloptions AS options,
           ({_acl("c.relowner", "c.relacl", _RELATION_KIND)}) AS acl,
           ARRAY(SELECT ARRAY[a.attname::text, format_type(a.atttypid, a.atttypmod),
                              a.attnotnull::text, coalesce(pg_get_expr(d.adbin, d.adrelid), ''),
                              a.attgenerated::text, a.attidentity::text, a.attstorage::text,
                              coalesce(a.attstattarget, -1)::text, coalesce(co.collname, '')]
                 FROM pg_attribute a
                 LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                 LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 100
                 WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                 ORDER BY a.attnum) AS columns,
           ARRAY(SELECT k.conname || ': ' || pg_get_constraintdef(k.oid)
                 FROM pg_constraint k WHERE k.conrelid = c.oid ORDER BY k.conname) AS constraints
    FROM pg_class c
    WHERE c.relnamespace = 'serving'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
"""

# Types of their own (a table's row type is the table's, above): attributes and privileges.
_TYPES = f"""
    SELECT t.typname AS key, t.typtype AS kind,
           ({_acl("t.typowner", "t.typacl", "'T'")}) AS acl,
           ARRAY(SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                 FROM pg_attribute a
                 WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
                 ORDER BY a.attnum) AS attributes
    FROM pg_type t LEFT JOIN pg_class c ON c.oid = t.typrelid
    WHERE t.typnamespace = 'serving'::regnamespace AND t.typtype IN ('c', 'd', 'e', 'r')
      AND (c.oid IS NULL OR c.relkind = 'c')
"""

_SCHEMAS = f"""
    SELECT n.nspname AS key,
           ({_acl("n.nspowner", "n.nspacl", "'n'")}) AS acl
    FROM pg_namespace n WHERE n.nspname IN ('serving', 'public')
"""

# Privileges changed on the catalog's own functions (the large-object functions).
_CATALOG_FUNCTIONS = f"""
    SELECT p.oid::regprocedure::text AS key,
           ({_acl("p.proowner", "p.proacl", "'f'")}) AS acl
    FROM pg_proc p WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proacl IS NOT NULL
"""

_DEFAULT_ACLS = f"""
    SELECT CASE WHEN d.defaclrole = (SELECT nspowner FROM pg_namespace WHERE nspname = 'serving')
                THEN 'OWNER' ELSE pg_get_userbyid(d.defaclrole) END
           || ' in ' || coalesce(d.defaclnamespace::regnamespace::text, '*')
           || ' on ' || d.defaclobjtype::text AS key,
           ({_acl("d.defaclrole", "d.defaclacl", None)}) AS acl
    FROM pg_default_acl d
"""

_WEB_ROLE = """
    SELECT r.rolname AS key, r.rolsuper AS super, r.rolinherit AS inherit,
           r.rolcreaterole AS createrole, r.rolcreatedb AS createdb, r.rolcanlogin AS login,
           r.rolconnlimit AS connection_limit,
           ARRAY(SELECT unnest(s.setconfig) ORDER BY 1) AS settings
    FROM pg_roles r LEFT JOIN pg_db_role_setting s ON s.setrole = r.oid AND s.setdatabase = 0
    WHERE r.rolname = 'jobharbor_web'
"""


def snapshot(url: str, *, bodies_without_comments: bool = False) -> dict[str, dict[str, Any]]:
    """The catalog of the serving database at `url`, section -> key -> what it is."""
    with psycopg.connect(url, row_factory=dict_row) as conn:
        found = {
            "functions": _keyed(conn, _FUNCTIONS),
            "relations": _keyed(conn, _RELATIONS),
            "types": _keyed(conn, _TYPES),
            "indexes": _keyed(
                conn,
                "SELECT indexname AS key, indexdef FROM pg_indexes WHERE schemaname = 'serving'",
            ),
            "triggers": _keyed(
                conn,
                """SELECT t.tgname AS key, pg_get_triggerdef(t.oid) AS definition
                   FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                   WHERE c.relnamespace = 'serving'::regnamespace AND NOT t.tgisinternal""",
            ),
            "policies": _keyed(
                conn,
                """SELECT tablename || '.' || policyname AS key, permissive, roles, cmd, qual,
                          with_check
                   FROM pg_policies WHERE schemaname = 'serving'""",
            ),
            "schemas": _keyed(conn, _SCHEMAS),
            "catalog_functions": _keyed(conn, _CATALOG_FUNCTIONS),
            "default_privileges": _keyed(conn, _DEFAULT_ACLS),
            "roles": _keyed(conn, _WEB_ROLE),
            "rows": {
                name: {"rows": _count(conn, name)}
                for name in _tables(conn)
                if name not in _NOT_COUNTED
            },
        }
    if bodies_without_comments:
        for function in found["functions"].values():
            function["body"] = _without_comments(function["body"])
    return found


def differences(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> list[str]:
    """Every place two snapshots differ, one line each (empty: the same catalog)."""
    lines = []
    for section in sorted(a.keys() | b.keys()):
        left, right = a.get(section, {}), b.get(section, {})
        for key in sorted(left.keys() | right.keys()):
            if key not in right:
                lines.append(f"{section} {key}: only in the first")
            elif key not in left:
                lines.append(f"{section} {key}: only in the second")
            else:
                for field in sorted(left[key].keys() | right[key].keys()):
                    if left[key].get(field) != right[key].get(field):
                        lines.append(
                            f"{section} {key} {field}: {left[key].get(field)!r} "
                            f"!= {right[key].get(field)!r}"
                        )
    return lines


def restore_legacy(url: str) -> None:
    """The serving schema as the numbered files up to version 13 left it, in the empty
    database at `url`. The role jobharbor_web belongs to the cluster: it must exist."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(gzip.decompress(LEGACY_DUMP.read_bytes()).decode("utf-8"))


def _keyed(conn: psycopg.Connection, query: str) -> dict[str, dict[str, Any]]:
    return {row.pop("key"): {k: _plain(v) for k, v in row.items()} for row in conn.execute(query)}


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, list | tuple) else value


def _tables(conn: psycopg.Connection) -> list[str]:
    return [
        r["relname"]
        for r in conn.execute(
            "SELECT relname FROM pg_class WHERE relnamespace = 'serving'::regnamespace "
            "AND relkind IN ('r', 'p') ORDER BY 1"
        )
    ]


def _count(conn: psycopg.Connection, table: str) -> int:
    return conn.execute(
        sql.SQL("SELECT count(*) AS n FROM serving.{}").format(sql.Identifier(table))
    ).fetchone()["n"]


def _without_comments(body: str | None) -> str | None:
    """A body without its `--` comments and trailing blanks (no `--` stands in a string in
    the serving functions)."""
    if body is None:
        return None
    return "\n".join(
        line.rstrip() for line in re.sub(r"[ \t]*--[^\n]*", "", body).split("\n")
    ).strip()
