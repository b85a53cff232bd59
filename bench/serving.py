"""Serving search at scale: synthetic published rows in serving.jobs, realistic queries
per class, through the same functions and role the web app uses.

Classes (first page of 20, newest first unless said): a common term, a rare term, a
prefix, filters only, a term plus 3 filters, facets (every facet group, disjunctive, with
the total), stats (the stats groups). Baseline in the same run: a naive `ts_rank` over
all matches with `count(*)`, for the same term queries.

Targets on a 2-core machine at 1M rows: list p95 <= 50 ms and p50 <= 15 ms, facets
p95 <= 200 ms. The last line is one JSON object with the figures.

    .venv/bin/python bench/serving.py                 # 1,000,000 rows, 200 queries/class
    .venv/bin/python bench/serving.py --rows 100000 --queries 50
    .venv/bin/python bench/serving.py --admin-url postgresql://...  # an existing server

Without --admin-url it starts a throwaway private cluster (pgserver binaries).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.db.connect import Database
from serving_sync import roles, search
from serving_sync import schema as serving_schema
from serving_sync.search import Filters, SearchRequest

SEED = 11
LIST_P95_MS, LIST_P50_MS, FACETS_P95_MS = 50.0, 15.0, 200.0
CHUNK = 100_000
SKILLS = 20_000  # rare words: each in about rows * 2 / SKILLS postings

ROLES = [
    "Software Engineer", "Data Engineer", "Backend Developer", "Frontend Developer",
    "Product Manager", "Product Designer", "Data Analyst", "Data Scientist", "DevOps Engineer",
    "Sales Representative", "Account Executive", "Customer Support Specialist",
    "Marketing Manager", "Accountant", "Kế toán tổng hợp", "Nhân viên kinh doanh",
    "Chuyên viên tuyển dụng", "Kỹ sư phần mềm", "HR Business Partner", "Financial Analyst",
    "Mechanical Engineer", "Registered Nurse", "Warehouse Associate", "Teacher",
    "Project Manager", "QA Engineer", "Security Engineer", "Machine Learning Engineer",
    "Office Manager", "Nhân viên kế toán",
]  # fmt: skip
COMMON_TERMS = ["engineer", "manager", "data", "developer", "senior", "sales", "ke toan",
                "analyst", "nhan vien", "product", "software engineer", "designer"]  # fmt: skip
PREFIXES = ["eng", "engin", "devel", "mana", "analy", "acc", "softw", "desig", "nhan vi", "ke to"]
COUNTRIES = ["US", "VN", "DE", "GB", "CA", "IN", "FR", "SG", "AU", "NL", "unknown"]
SOURCES = ["greenhouse", "lever", "ashby", "workday", "smartrecruiters", "vietnamworks",
           "topcv", "personio", "recruitee", "teamtailor"]  # fmt: skip

# Countries by weight (15% unknown, some multi-country postings), then 3 cities each.
_PLACE_SQL = """
CASE
  WHEN g.c < 0.25 THEN 'US' WHEN g.c < 0.40 THEN 'VN' WHEN g.c < 0.48 THEN 'DE'
  WHEN g.c < 0.56 THEN 'GB' WHEN g.c < 0.62 THEN 'CA' WHEN g.c < 0.68 THEN 'IN'
  WHEN g.c < 0.72 THEN 'FR' WHEN g.c < 0.75 THEN 'SG' WHEN g.c < 0.78 THEN 'AU'
  WHEN g.c < 0.81 THEN 'NL' WHEN g.c < 0.85 THEN 'US+CA' ELSE '' END
"""

GENERATE_SQL = """
WITH params AS (
    SELECT %(roles)s::text[] AS roles, %(sources)s::text[] AS sources,
           ARRAY['', '', '', 'Senior ', 'Junior ', 'Lead ', 'Staff ', 'Principal '] AS levels,
           ARRAY['Acme','Globex','Initech','Umbrella','Hooli','Vandelay','Stark','Wayne',
                 'Tyrell','Cyberdyne','Soylent','Wonka','Aperture','Massive','Oceanic',
                 'Pied Piper','Vingroup','FPT','Tiki','Momo'] AS brands,
           ARRAY['Labs','Systems','Group','Software','Bank','Health','Logistics','Retail',
                 'Energy','Media'] AS kinds
), g AS (
    SELECT i, random() AS c, random() AS x, floor(30 * random() ^ 1.6)::int + 1 AS role,
           floor(5000 * random() ^ 3)::int AS co, floor(8 * random())::int + 1 AS lvl,
           floor(500 * random())::int AS p1, floor(500 * random())::int AS p2,
           floor(%(skills)s::int * random())::int AS s1, floor(%(skills)s::int * random())::int AS s2,
           random() AS rr, random() AS jt, random() AS et, random() AS sal, random() AS pst
    FROM generate_series(%(start)s::int, %(stop)s::int) AS i
), r AS (
    SELECT g.*, (SELECT p.levels[g.lvl] || p.roles[g.role] FROM params p) AS title,
           ({place}) AS place
    FROM g
)
INSERT INTO serving.jobs (
    id, source, external_id, status, title, company, location_text, countries, regions,
    cities, location_unresolved, remote, employment_type, job_type, posted_at,
    posted_precision, first_seen_at, salary_min, salary_max, salary_currency, salary_period,
    url, description, openings_12m {extra_cols}
)
SELECT r.i, p.sources[1 + floor(10 * r.x ^ 2)::int], 'ext-' || r.i,
       CASE WHEN r.x < 0.03 THEN 'missing' ELSE 'active' END, r.title,
       CASE WHEN r.co %% 12 = 0 THEN NULL
            ELSE p.brands[1 + r.co %% 20] || ' ' || p.kinds[1 + (r.co / 20) %% 10]
                 || CASE WHEN r.co >= 200 THEN ' ' || r.co ELSE '' END END,
       nullif(r.place, ''),
       CASE r.place WHEN '' THEN '{{}}'::text[] WHEN 'US+CA' THEN ARRAY['CA','US']
            ELSE ARRAY[r.place] END,
       CASE r.place WHEN '' THEN '{{}}'::text[] ELSE ARRAY['Region ' || r.place || (r.i %% 3)] END,
       CASE r.place WHEN '' THEN '{{}}'::text[] ELSE ARRAY['City ' || r.place || (r.i %% 3)] END,
       r.place = '',
       CASE WHEN r.rr < 0.20 THEN 'yes' WHEN r.rr < 0.35 THEN 'hybrid' ELSE 'unknown' END,
       CASE WHEN r.et < 0.60 THEN 'Full-time' WHEN r.et < 0.70 THEN 'Part-time'
            WHEN r.et < 0.75 THEN 'Contract' END,
       CASE WHEN r.jt < 0.05 THEN 'intern' WHEN r.jt < 0.07 THEN 'new_grad'
            WHEN r.jt < 0.08 THEN 'student' WHEN r.jt < 0.09 THEN 'research' END,
       CASE WHEN r.pst < 0.7 THEN now() - r.pst / 0.7 * interval '365 days' END,
       CASE WHEN r.pst < 0.7 THEN 'day' ELSE 'unknown' END,
       now() - r.jt * interval '365 days',
       CASE WHEN r.sal < 0.25 THEN round((30000 + r.sal * 480000)::numeric, -3) END,
       CASE WHEN r.sal < 0.25 THEN round((40000 + r.sal * 600000)::numeric, -3) END,
       CASE WHEN r.sal < 0.125 THEN 'USD' WHEN r.sal < 0.2 THEN 'EUR' WHEN r.sal < 0.25 THEN 'VND' END,
       CASE WHEN r.sal < 0.25 THEN 'year' END,
       'https://jobs.example.test/' || r.i,
       para.t[1 + r.p1] || ' Skills: '
           || bench_word('s' || r.s1) || ', ' || bench_word('s' || r.s2) || '.',
       1 + (r.i %% 3) {extra_vals}
FROM r, params p, bench_paragraphs para
"""

PARAGRAPHS_SQL = """
CREATE OR REPLACE FUNCTION bench_word(seed text) RETURNS text LANGUAGE sql IMMUTABLE
RETURN translate(substr(md5(seed), 1, 8), '0123456789', 'ghijklmnop');
DROP TABLE IF EXISTS bench_paragraphs;
-- 500 paragraphs of ~90 words: common English words and a long tail of rarer ones.
CREATE TABLE bench_paragraphs AS
SELECT array_agg(t) AS t FROM (
    SELECT string_agg(
        CASE WHEN random() < 0.6
             THEN (ARRAY['we','are','looking','for','a','team','to','build','and','ship',
                         'products','customers','love','you','will','work','with','our',
                         'people','data','systems','growth','remote','office','benefits',
                         'experience','years','strong','skills','communication','cong ty',
                         'moi truong','lam viec','chuyen nghiep'])[1 + floor(34 * random())::int]
             ELSE bench_word('w' || floor(3000 * random() ^ 2)::int) END, ' ') AS t
    FROM generate_series(1, 500) AS p, generate_series(1, 90) AS w
    GROUP BY p
) AS paragraphs;
"""


def _extra(conn: psycopg.Connection) -> tuple[str, str]:
    """Bookkeeping columns this schema version requires (the sync's, not search's)."""
    cols = {
        r["column_name"]
        for r in conn.execute(
            """SELECT column_name FROM information_schema.columns
               WHERE table_schema = 'serving' AND table_name = 'jobs' AND is_nullable = 'NO'
                 AND column_default IS NULL AND is_generated = 'NEVER'"""
        )
    }
    values = {"fingerprint": "'bench'", "last_seen_on": "current_date"}
    names = [c for c in values if c in cols]
    return "".join(", " + c for c in names), "".join(", " + values[c] for c in names)


def generate(db: Database, rows: int) -> float:
    """Fill serving.jobs with `rows` synthetic postings; indexes rebuilt after the load."""
    started = time.monotonic()
    with db.connect(autocommit=True) as conn:
        conn.execute(PARAGRAPHS_SQL)
        indexes = conn.execute(
            """SELECT indexname, indexdef FROM pg_indexes
               WHERE schemaname = 'serving' AND tablename = 'jobs'
                 AND indexname NOT IN ('jobs_pkey', 'jobs_source_external_id_key')"""
        ).fetchall()
        for index in indexes:
            conn.execute(f'DROP INDEX serving."{index["indexname"]}"')
        extra_cols, extra_vals = _extra(conn)
        sql = GENERATE_SQL.format(place=_PLACE_SQL, extra_cols=extra_cols, extra_vals=extra_vals)
        conn.execute("SELECT setseed(0.11)")
        for start in range(1, rows + 1, CHUNK):
            stop = min(rows, start + CHUNK - 1)
            conn.execute(
                sql,
                {
                    "roles": ROLES,
                    "sources": SOURCES,
                    "skills": SKILLS,
                    "start": start,
                    "stop": stop,
                },
            )
            print(f"  generated {stop:,} rows ({time.monotonic() - started:.0f}s)", flush=True)
        conn.execute("SET maintenance_work_mem = '512MB'")
        for index in indexes:
            conn.execute(index["indexdef"])
        conn.execute("VACUUM (ANALYZE) serving.jobs")
    return time.monotonic() - started


def _random_filters(rng: random.Random, count: int) -> dict[str, Any]:
    choices: list[tuple[str, Any]] = [
        ("country", tuple(rng.sample(COUNTRIES, rng.choice([1, 1, 2])))),
        ("remote", (rng.choice(["yes", "hybrid", "unknown"]),)),
        ("source", (rng.choice(SOURCES),)),
        ("job_type", (rng.choice(["intern", "unknown", "new_grad"]),)),
        ("employment_type", (rng.choice(["Full-time", "Part-time", "unknown"]),)),
        ("posted_within_days", rng.choice([7, 30, 90])),
        ("has_salary", True),
    ]
    return dict(rng.sample(choices, count))


def query_classes(rng: random.Random, n: int) -> dict[str, list[Filters]]:
    def skill() -> str:
        import hashlib

        digest = hashlib.md5(f"s{rng.randrange(SKILLS)}".encode()).hexdigest()[:8]
        return digest.translate(str.maketrans("0123456789", "ghijklmnop"))

    return {
        "common_term": [Filters(q=rng.choice(COMMON_TERMS)) for _ in range(n)],
        "rare_term": [Filters(q=skill()) for _ in range(n)],
        "prefix": [Filters(q=rng.choice(PREFIXES)) for _ in range(n)],
        "filters_only": [Filters(**_random_filters(rng, rng.choice([1, 2, 3]))) for _ in range(n)],
        "term_3_filters": [
            Filters(q=rng.choice(COMMON_TERMS), **_random_filters(rng, 3)) for _ in range(n)
        ],
    }


def _timed(run: Callable[[], Any]) -> float:
    started = time.perf_counter()
    run()
    return (time.perf_counter() - started) * 1000


def _summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return {"p50_ms": round(statistics.median(ordered), 2), "p95_ms": round(p95, 2)}


NAIVE_SQL = """
SELECT j.id, ts_rank(j.search_tsv, q) AS rank, count(*) OVER () AS total
FROM serving.jobs j, serving.web_tsquery(%s, %s) AS q
WHERE j.search_tsv @@ q ORDER BY rank DESC LIMIT 20
"""


def measure(reader: str, owner: str, n: int, rng: random.Random) -> dict[str, dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    classes = query_classes(rng, n)
    with psycopg.connect(reader, autocommit=True, row_factory=dict_row) as conn:
        for filters in classes["common_term"][:5]:  # warm the cache a little
            search.search(conn, SearchRequest(filters))
        for name, queries in classes.items():
            times = [_timed(lambda f=f: search.search(conn, SearchRequest(f))) for f in queries]
            results[name] = _summary(times)
            print(
                f"  {name:<16} p50 {results[name]['p50_ms']:>8} ms  p95 {results[name]['p95_ms']:>8} ms"
            )
        for name, groups in (("facets", search.FACET_GROUPS), ("stats", search.STATS_GROUPS)):
            mixed = classes["common_term"][: n // 2] + classes["filters_only"][: n - n // 2]
            times = [
                _timed(lambda f=f, g=groups: search.counts(conn, f, g, budget_ms=2900, top_n=12))
                for f in mixed
            ]
            results[name] = _summary(times)
            print(
                f"  {name:<16} p50 {results[name]['p50_ms']:>8} ms  p95 {results[name]['p95_ms']:>8} ms"
            )
    with psycopg.connect(owner, autocommit=True) as conn:  # the baseline: rank everything
        terms = classes["common_term"] + classes["rare_term"] + classes["prefix"]
        sample = rng.sample(terms, n)
        times = [
            _timed(
                lambda f=f: conn.execute(NAIVE_SQL, (f.q, search.prefix_applies(f.q))).fetchall()
            )
            for f in sample
        ]
        results["naive_rank_count"] = _summary(times)
        print(
            f"  {'naive baseline':<16} p50 {results['naive_rank_count']['p50_ms']:>8} ms  p95 {results['naive_rank_count']['p95_ms']:>8} ms"
        )
    return results


def run(admin_url: str, rows: int, queries: int, keep: str | None = None) -> dict[str, Any]:
    name = keep or f"bench_serving_{uuid.uuid4().hex[:8]}"
    owner = psycopg.conninfo.make_conninfo(admin_url, dbname=name)
    db = Database(owner)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    try:
        load_s = 0.0
        if not exists:
            serving_schema.upgrade(db)
            print(f"generating {rows:,} rows", flush=True)
            load_s = generate(db, rows)
        roles.provision_web_role(db, "bench-password")
        reader = roles.reader_url(owner, "bench-password")
        figures = measure(reader, owner, queries, random.Random(SEED))
    finally:
        if not keep:
            with psycopg.connect(admin_url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    lists = [
        figures[c] for c in ("common_term", "rare_term", "prefix", "filters_only", "term_3_filters")
    ]
    return {
        "rows": rows,
        "queries_per_class": queries,
        "load_s": round(load_s, 1),
        "search_p50_ms": max(c["p50_ms"] for c in lists),
        "search_p95_ms": max(c["p95_ms"] for c in lists),
        "facets_p95_ms": figures["facets"]["p95_ms"],
        "stats_p95_ms": figures["stats"]["p95_ms"],
        "naive_p50_ms": figures["naive_rank_count"]["p50_ms"],
        "naive_p95_ms": figures["naive_rank_count"]["p95_ms"],
        "classes": figures,
        "targets": {
            "search_p95_ms": LIST_P95_MS,
            "search_p50_ms": LIST_P50_MS,
            "facets_p95_ms": FACETS_P95_MS,
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200, help="queries per class")
    parser.add_argument(
        "--admin-url", help="a PostgreSQL superuser URL (default: a private cluster)"
    )
    parser.add_argument(
        "--keep", metavar="DB", help="keep (or reuse) the generated database under this name"
    )
    args = parser.parse_args(argv)
    if args.admin_url:
        figures = run(args.admin_url, args.rows, args.queries, args.keep)
    else:
        from pipeline.db.embedded import ensure_cluster, stop_cluster

        root = Path(tempfile.mkdtemp(prefix="jobharbor-bench-"))
        try:
            cluster = ensure_cluster(root, databases=(), durable=False, password_auth=False)
            figures = run(cluster.url("postgres"), args.rows, args.queries)
        finally:
            stop_cluster(root)
            shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
