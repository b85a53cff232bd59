"""Serving search at scale: synthetic published rows in serving.jobs, realistic queries
per class, through the same functions and role the web app uses.

Classes (first page of 20, newest first unless said): a common term, a rare term, a
prefix, filters only, a term plus 3 filters, facets (every facet group, disjunctive, with
the total), stats (the stats groups), typeahead (what visitors type, 2-6 characters:
`typeahead_p95_ms`) and typo (a common word mistyped, the correction included:
`typo_p95_ms`, and `typo_corrected_share`, the share corrected to the word meant) and
grouped (a common term or filters listed with group=company: `grouped_p95_ms`).
Baselines in the same run: a naive `ts_rank` over all matches with `count(*)`, for the
same term queries; and the peer, tantivy over the same rows with the same list classes
and facet requests (bench/_serving_peer.py, which states where the semantics differ):
`peer_<class>_p50_ms`/`_p95_ms`, serving / peer as `peer_<class>_p50_ratio`/`_p95_ratio`,
`peer_search_p95_ratio` (the slowest list class of each side), `peer_facets_p95_ratio`
and `peer_match_ratio_p50` (how many postings each side says a common term matches).
Storage: `serving_bytes_per_row` (table, TOAST, indexes, facet structures, lexicon,
suggestions over the rows) and `stem_lexemes_share`.

Facets and stats are counted in two states. First by the counting queries alone (as
between a sync's commit and the build of its facet bitmaps): all queries under the
facets target as the request's budget (as the web app runs them: a part past it is
"unavailable", never a wrong number), and a sample of SAMPLE with a budget only the
role's 3 s statement timeout caps (`facets_query_p95_ms`: what exact counts cost that
way). Then the bitmaps are built as a sync builds them (`facet_bits_build_s`), and
every query runs both ways again (`facets_p95_ms`: exact counts as a published, current
serving schema answers them; `facets_unavailable_share` under the budget;
`facets_bitmap_answered_share`: requests the bitmaps answered whole). Then
`facets_during_sync`: the facet requests read without pause while a sync that changed
1% of the rows applies, makes its facet delta and commits, and while the rebuild after
it runs (`facets_during_sync_p50_ms`/`_p95_ms`, `facets_during_sync_fast_share`: the
share the bitmaps answered whole; `facet_update_1pct_s`: the facet work that sync's
transaction does, recording its postings and making the delta; nothing is owed after
its commit). The rows it changes stay changed for the figures after it.

The data: titles from 30 roles (skewed: the first ones are commonest), 5,000 companies
(cubic skew, 1 in 12 unknown), 11 country choices (15% unknown, some two-country),
work mode 20% remote / 15% hybrid / 65% unknown, posted dates for 70%, salaries for 25%.
Descriptions are two of 4,000 paragraphs of 45 words drawn by Zipf's law (s = 1) from
a 50,000-word vocabulary whose head is real job-ad English in rough frequency order
(HEAD_WORDS), plus two of 20,000 rare skill words. Real descriptions are longer (300+
words), so mid-frequency words are somewhat rarer here than in real ads; the common
query terms are mostly title words and match 5-37% of the rows
(`common_term_match_share`). Rows are generated set-based in SQL, in chunks on two
connections, with the search indexes built after the load.

After the load it keeps the unfiltered counts as a sync that changed rows does
(serving.facet_totals; `facet_totals_refresh_s`). Its own throwaway cluster gets 2 GB
of shared buffers (BENCH_SERVER_SETTINGS; with --admin-url the server's settings are
used, and reported as `server_settings`).

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
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _serving_peer as peer  # bench/, the script's own folder

from pipeline.db.connect import Database
from pipeline.progress import Progress
from serving_sync import facet_bits, lexicon, roles, search, typeahead
from serving_sync import schema as serving_schema
from serving_sync.search import Filters, SearchRequest

SEED = 11
LIST_P95_MS, LIST_P50_MS, FACETS_P95_MS = 50.0, 15.0, 200.0
CHUNK = 50_000
SKILLS = 20_000  # rare words: each in about rows * 2 / SKILLS postings
SAMPLE = 20  # queries per class timed with exact counts (no budget), and for the baseline
LOAD_WORKERS = 2  # connections generating chunks side by side
# Description vocabulary: Zipf's law (s = 1) over VOCAB words. The head is real job-ad
# English in rough order of frequency (function words first, then the words every ad
# uses); the tail is synthetic words. Placing the query terms: "data" at rank ~40 and
# the title words ("engineer", "manager", ...) lower, so a description alone contains
# "data" in ~1 of 5 postings and "engineer" in ~1 of 12, rather than in nearly all of
# them as a fixed filler list would make it. Titles add their own matches on top.
VOCAB = 50_000
PARAGRAPHS = 4_000  # each description is two of them plus two skill words
PARAGRAPH_WORDS = 45
_HEAD_TEXT = """
and the to of a you in with for our we will be is are or on as your experience team
work an this at skills that have from by business including ability strong role all
support knowledge working management customer new years development opportunity
data us product environment company clients services benefits technical communication
sales training design help across people growth office time quality responsible
manage projects process service solutions requirements excellent build engineering
cong ty lam viec moi truong chuyen nghiep manager systems teams engineer software
customers tools culture senior marketing health remote analysis operations
performance developer finance plan equal employer insurance tasks nhan vien
salary bonus analyst industry products client reporting cloud technology python
sql designer security mobile flexible leadership platform ke toan
"""
HEAD_WORDS = _HEAD_TEXT.split()

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
           floor(%(paragraphs)s::int * random())::int AS p1,
           floor(%(paragraphs)s::int * random())::int AS p2,
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
    cities, location_unresolved, work_mode, employment_type, job_type, posted_at,
    posted_precision, first_seen_at, salary_min, salary_max, salary_currency, salary_period,
    url, description, openings_12m, language {extra_cols}
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
       CASE WHEN r.rr < 0.20 THEN 'remote' WHEN r.rr < 0.35 THEN 'hybrid' ELSE 'unknown' END,
       CASE WHEN r.et < 0.60 THEN ARRAY['full_time'] WHEN r.et < 0.70 THEN ARRAY['part_time']
            WHEN r.et < 0.75 THEN ARRAY['contract'] ELSE '{{}}'::text[] END,
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
       pa.t || ' ' || pb.t || ' Skills: '
           || bench_word('s' || r.s1) || ', ' || bench_word('s' || r.s2) || '.',
       1 + (r.i %% 3),
       -- As the sync detects it: most postings English (their words stemmed), some unclear.
       CASE WHEN r.c < 0.85 THEN 'en' END {extra_vals}
FROM r CROSS JOIN params p
JOIN bench_paragraphs pa ON pa.n = r.p1 JOIN bench_paragraphs pb ON pb.n = r.p2
"""

PARAGRAPHS_SQL = (
    """CREATE OR REPLACE FUNCTION bench_word(seed text) RETURNS text LANGUAGE sql IMMUTABLE
       RETURN translate(substr(md5(seed), 1, 8), '0123456789', 'ghijklmnop')""",
    "DROP TABLE IF EXISTS bench_vocab, bench_paragraphs",
    """CREATE TABLE bench_vocab AS
       SELECT r AS rank, coalesce((%(head)s::text[])[r], bench_word('w' || r)) AS word
       FROM generate_series(1, %(vocab)s::int) AS r""",
    # Zipf (s = 1) by inverse transform: rank = floor(V^u) has P(r) ~ 1 / (r ln V).
    """CREATE TABLE bench_paragraphs AS
       SELECT d.p AS n, string_agg(v.word, ' ' ORDER BY d.w) AS t
       FROM (SELECT p, w, least(%(vocab)s::int,
                                floor(exp(random() * ln(%(vocab)s::int + 1)))::int) AS rank
             FROM generate_series(0, %(paragraphs)s::int - 1) AS p,
                  generate_series(1, %(words)s::int) AS w) AS d
       JOIN bench_vocab v USING (rank)
       GROUP BY d.p""",
    "ALTER TABLE bench_paragraphs ADD PRIMARY KEY (n)",
    "ANALYZE bench_paragraphs",
)


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


def _prepare(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """The vocabulary and paragraphs; drops the search indexes (rebuilt after the load)
    and returns their definitions."""
    params = {
        "head": HEAD_WORDS,
        "vocab": VOCAB,
        "paragraphs": PARAGRAPHS,
        "words": PARAGRAPH_WORDS,
    }
    conn.execute("SELECT setseed(0.11)")
    for statement in PARAGRAPHS_SQL:
        conn.execute(statement, params if "%(" in statement else None)
    indexes = conn.execute(
        """SELECT indexname, indexdef FROM pg_indexes
           WHERE schemaname = 'serving' AND tablename = 'jobs'
             AND indexname NOT IN ('jobs_pkey', 'jobs_source_external_id_key')"""
    ).fetchall()
    for index in indexes:
        conn.execute(f'DROP INDEX serving."{index["indexname"]}"')
    return indexes


def _load_chunk(db: Database, sql: str, start: int, stop: int) -> None:
    with db.connect(autocommit=True) as conn:
        conn.execute("SELECT setseed(%s)", (start / (start + 1) - 0.5,))  # same rows every run
        conn.execute(
            sql,
            {
                "roles": ROLES,
                "sources": SOURCES,
                "skills": SKILLS,
                "paragraphs": PARAGRAPHS,
                "start": start,
                "stop": stop,
            },
        )


def _build_index(db: Database, definition: str) -> None:
    with db.connect(autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '1GB'")  # fewer GIN build flushes
        conn.execute(definition)


def generate(db: Database, rows: int) -> float:
    """Fill serving.jobs with `rows` synthetic postings, set-based in chunks on
    LOAD_WORKERS connections; indexes rebuilt after the load, then VACUUM ANALYZE (the
    visibility map the index-only counting scans need)."""
    started = time.monotonic()
    with db.connect(autocommit=True) as conn:
        indexes = _prepare(conn)
        extra_cols, extra_vals = _extra(conn)
    sql = GENERATE_SQL.format(place=_PLACE_SQL, extra_cols=extra_cols, extra_vals=extra_vals)
    chunks = [(s, min(rows, s + CHUNK - 1)) for s in range(1, rows + 1, CHUNK)]
    with ThreadPoolExecutor(LOAD_WORKERS) as pool:
        jobs = [pool.submit(_load_chunk, db, sql, a, b) for a, b in chunks]
        with Progress("serving: chunks generated", len(jobs)) as progress:
            for job in as_completed(jobs):
                job.result()
                progress.advance()
    # The text index (the longest build) first; the others on the other connection.
    indexes.sort(key=lambda i: "gin (search_tsv)" not in i["indexdef"])
    with ThreadPoolExecutor(LOAD_WORKERS) as pool:
        for job in [pool.submit(_build_index, db, i["indexdef"]) for i in indexes]:
            job.result()
    with db.connect(autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE) serving.jobs")
    print(f"  indexed and vacuumed ({time.monotonic() - started:.0f}s)", flush=True)
    return time.monotonic() - started


def keep_unfiltered_counts(db: Database) -> float:
    """What a sync that changed rows does after its writes (serving.facet_totals): the
    unfiltered counts, kept, so no request pays a full pass for them. Timed (seconds)."""
    started = time.monotonic()
    with db.connect(autocommit=True) as conn:
        conn.execute("SELECT serving.refresh_facet_totals()")
    print(f"  unfiltered counts kept ({time.monotonic() - started:.1f}s)", flush=True)
    return time.monotonic() - started


def _random_filters(rng: random.Random, count: int) -> dict[str, Any]:
    choices: list[tuple[str, Any]] = [
        ("country", tuple(rng.sample(COUNTRIES, rng.choice([1, 1, 2])))),
        ("work_mode", (rng.choice(["remote", "hybrid", "unknown"]),)),
        ("source", (rng.choice(SOURCES),)),
        ("job_type", (rng.choice(["intern", "unknown", "new_grad"]),)),
        ("employment_type", (rng.choice(["full_time", "part_time", "unknown"]),)),
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


# What a visitor types into the search box, 2 to 6 characters of the commonest things.
TYPED = ["en", "eng", "engi", "da", "data", "data e", "ma", "man", "de", "dev", "so", "soft",
         "ke", "ke to", "nh", "nhan", "sa", "sal", "ac", "acc", "pr", "prod", "an", "ana",
         "us", "vi", "be", "ber"]  # fmt: skip


def typo_queries(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """(typed, meant): a common word of 5 letters or more with one letter left out,
    doubled, replaced or swapped with the next, as people mistype (still 5 letters or
    more: shorter words are not corrected)."""
    words = [w for t in COMMON_TERMS for w in t.split() if len(w) >= 5]
    found: list[tuple[str, str]] = []
    while len(found) < n:
        word = rng.choice(words)
        at = rng.randrange(1, len(word) - 1)
        typed = rng.choice([
            word[:at] + word[at + 1 :],
            word[:at] + word[at] + word[at:],
            word[:at] + ("x" if word[at] != "x" else "z") + word[at + 1 :],
            word[:at] + word[at + 1] + word[at] + word[at + 2 :],
        ])  # fmt: skip
        if typed != word and len(typed) >= 5:  # a swap of two like letters is no typo
            found.append((typed, word))
    return found


def measure_typing(conn: psycopg.Connection, rng: random.Random, n: int) -> dict[str, Any]:
    """Typeahead over what visitors type, and whole searches for mistyped words (the
    correction included): latency, and the share corrected to the word meant (a typo
    can also land on another real word: "sales" -> "saves" is a word too)."""
    typed = [rng.choice(TYPED) for _ in range(n)]
    ahead = _summary([_timed(lambda t=t: typeahead.suggest(conn, t)) for t in typed])
    _print("typeahead", ahead)
    typos = typo_queries(rng, n)
    pages: list[search.Page] = []
    times = [
        _timed(lambda t=t: pages.append(search.search(conn, SearchRequest(Filters(q=t)))))
        for t, _ in typos
    ]
    typo = _summary(times)
    meant = sum(page.corrected_query == word for page, (_, word) in zip(pages, typos, strict=True))
    typo["corrected_share"] = round(meant / len(typos), 3)
    _print("typo", typo)
    return {"typeahead": ahead, "typo": typo}


def _timed(run: Callable[[], Any]) -> float:
    """Milliseconds; a query cut by the role's statement timeout counts with its time."""
    started = time.perf_counter()
    try:
        run()
    except psycopg.errors.QueryCanceled:
        print("  (a query hit the statement timeout)", flush=True)
    return (time.perf_counter() - started) * 1000


def _summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return {"p50_ms": round(statistics.median(ordered), 2), "p95_ms": round(p95, 2)}


# The text query goes in as a value: web_tsquery reads the lexicon (STABLE), so the planner
# would not see what a call of it in the query returns.
TSQUERY_SQL = "SELECT serving.web_tsquery(%s, %s)::text"
NAIVE_SQL = """
SELECT j.id, ts_rank(j.search_tsv, %(q)s::tsquery) AS rank, count(*) OVER () AS total
FROM serving.jobs j
WHERE j.search_tsv @@ %(q)s::tsquery ORDER BY rank DESC LIMIT 20
"""


def _naive(conn: psycopg.Connection, q: str) -> list[Any]:
    tsq = conn.execute(TSQUERY_SQL, (q, search.prefix_applies(q))).fetchone()[0]
    return conn.execute(NAIVE_SQL, {"q": tsq}).fetchall()


def _print(name: str, figures: dict[str, float]) -> None:
    extra = "".join(f"  {k} {v}" for k, v in figures.items() if not k.endswith("_ms"))
    print(f"  {name:<16} p50 {figures['p50_ms']:>8} ms  p95 {figures['p95_ms']:>8} ms{extra}")


def _count_classes(
    conn: psycopg.Connection,
    classes: dict[str, list[Filters]],
    n: int,
    exact_n: int,
    prefix: str = "",
) -> dict[str, dict[str, float]]:
    """Facets and stats as the web app asks them: under the target as the request's
    budget (parts past it unavailable: how often is reported), and, on a sample, with a
    budget none reaches (the time exact counts take)."""
    results: dict[str, dict[str, float]] = {}
    mixed = classes["common_term"][: n // 2] + classes["filters_only"][: n - n // 2]
    exact = mixed[: exact_n // 2] + mixed[n // 2 : n // 2 + exact_n - exact_n // 2]
    for name, groups in (("facets", search.FACET_GROUPS), ("stats", search.STATS_GROUPS)):
        times, missing = [], 0
        for f in mixed:
            started = time.perf_counter()
            found = search.counts(conn, f, groups, budget_ms=int(FACETS_P95_MS), top_n=12)
            times.append((time.perf_counter() - started) * 1000)
            missing += found.total is None or None in found.groups.values()
        results[f"{prefix}{name}_budgeted"] = {
            **_summary(times),
            "unavailable_share": round(missing / len(mixed), 3),
        }
        _print(f"{prefix}{name} @{FACETS_P95_MS:.0f}ms", results[f"{prefix}{name}_budgeted"])
        times = [
            _timed(lambda f=f, g=groups: search.counts(conn, f, g, budget_ms=2900, top_n=12))
            for f in exact
        ]
        results[f"{prefix}{name}"] = _summary(times)
        _print(f"{prefix}{name} exact", results[f"{prefix}{name}"])
    return results


def _bitmap_share(conn: psycopg.Connection, requests: list[Filters]) -> float:
    """The share of these requests the bitmaps answer whole (every facet group)."""
    answered = 0
    for f in requests:
        rows = conn.execute(
            search.FACET_BITS_SQL, (*search.filter_args(f), list(search.FACET_GROUPS), 12)
        ).fetchall()
        answered += {r["facet"] for r in rows} >= set(search.FACET_GROUPS)
    return round(answered / max(len(requests), 1), 3)


def build_bitmaps(db: Database) -> float:
    """What a sync that changed rows does after its commit (serving_sync.facet_bits).
    Timed (seconds)."""
    report = facet_bits.refresh(db, force=True)
    print(
        f"  facet bitmaps built over {report.slots:,} slots ({report.elapsed_s:.1f}s)", flush=True
    )
    return report.elapsed_s


# A sync that changed 1% of the rows: places, work mode, company and title (its words),
# in one transaction, as the sync writes them, with the facet bitmaps' delta it makes.
SYNC_SHARE = 100  # one row in this many
SYNC_UPDATE = f"""
UPDATE serving.jobs SET
    work_mode = CASE work_mode WHEN 'remote' THEN 'hybrid' ELSE 'remote' END,
    countries = CASE WHEN countries = '{{}}' THEN '{{DE}}'::text[] ELSE '{{}}'::text[] END,
    company = CASE WHEN id %% 3 = 0 THEN 'Synced Co ' || id %% 7 ELSE company END,
    title = title || ' II'
WHERE id %% {SYNC_SHARE} = %s
"""
FACET_TRIGGER = "ALTER TABLE serving.jobs {} TRIGGER jobs_facet_update"


def _facet_update_cost(owner: str) -> tuple[float, float]:
    """A 1% sync's facet work, seconds: what recording its postings adds to its
    UPDATE (the same statement timed without the facet trigger, rolled back), and the
    delta it makes before its commit (serving.refresh_facet_delta)."""
    with psycopg.connect(owner) as conn:
        conn.execute(FACET_TRIGGER.format("DISABLE"))
        started = time.perf_counter()
        conn.execute(SYNC_UPDATE, (SYNC_SHARE - 1,))
        bare = time.perf_counter() - started
        conn.rollback()
        started = time.perf_counter()
        conn.execute(SYNC_UPDATE, (SYNC_SHARE - 1,))
        recorded = time.perf_counter() - started
        conn.rollback()
    return max(recorded - bare, 0.0), bare


def measure_during_sync(reader: str, owner: str, requests: list[Filters]) -> dict[str, float]:
    """Facet requests (as the web app asks them, under the facets target as the budget)
    read without pause while a 1% sync applies, makes its delta and commits, and while
    the rebuild after it runs: their p50/p95, the share the bitmaps answered whole
    (`fast_share`), and `facet_update_1pct_s`, the time between the sync's commit and
    facets being current for every request: the facet work inside the sync's
    transaction (nothing is left after its commit)."""
    trigger_s, update_s = _facet_update_cost(owner)
    done = threading.Event()
    times: list[float] = []
    fast = 0

    def read() -> None:
        nonlocal fast
        with psycopg.connect(reader, autocommit=True, row_factory=dict_row) as conn:
            k = 0
            while not done.is_set():
                f = requests[k % len(requests)]
                k += 1
                started = time.perf_counter()
                search.counts(conn, f, search.FACET_GROUPS, budget_ms=int(FACETS_P95_MS), top_n=12)
                times.append((time.perf_counter() - started) * 1000)
                fast += _bitmap_share(conn, [f]) == 1.0

    reading = threading.Thread(target=read)
    reading.start()
    try:
        time.sleep(1)
        with psycopg.connect(owner, row_factory=dict_row) as conn:
            conn.execute(SYNC_UPDATE, (SYNC_SHARE // 2,))
            started = time.perf_counter()
            made = conn.execute("SELECT serving.refresh_facet_delta() AS n").fetchone()
            delta_rows = made["n"] if made else 0
            delta_s = time.perf_counter() - started
            conn.commit()
            current = facet_bits.is_current(conn)  # from the commit on
        time.sleep(1)
        rebuild = facet_bits.refresh(Database(owner), force=True)  # readers keep reading
        time.sleep(1)
    finally:
        done.set()
        reading.join()
    figures = {
        **_summary(times),
        "requests": len(times),
        "fast_share": round(fast / max(len(times), 1), 3),
        "update_s": round(update_s, 2),
        "trigger_s": round(trigger_s, 2),
        "delta_s": round(delta_s, 2),
        "delta_rows": delta_rows,
        "current_at_commit": current,
        "rebuild_s": round(rebuild.elapsed_s, 1),
        "facet_update_1pct_s": round(trigger_s + delta_s, 2),
    }
    _print("facets during sync", figures)
    return figures


def _match_shares(conn: psycopg.Connection) -> dict[str, float]:
    """The share of postings each common term matches (the cost of counting it)."""
    total = conn.execute("SELECT count(*) FROM serving.jobs").fetchone()[0]
    shares = {}
    for term in COMMON_TERMS:
        tsq = conn.execute(TSQUERY_SQL, (term, False)).fetchone()[0]
        found = conn.execute(
            "SELECT count(*) FROM serving.jobs WHERE search_tsv @@ %s::tsquery", (tsq,)
        ).fetchone()[0]
        shares[term] = round(found / max(total, 1), 3)
    print(f"  common terms match (share of rows): {shares}")
    return shares


def measure(
    reader: str, owner: str, n: int, rng: random.Random
) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    classes = query_classes(rng, n)
    sample_n = min(n, SAMPLE)
    with psycopg.connect(reader, autocommit=True, row_factory=dict_row) as conn:
        for filters in classes["common_term"][:5]:  # warm the cache a little
            search.search(conn, SearchRequest(filters))
        for name, queries in classes.items():
            times = [_timed(lambda f=f: search.search(conn, SearchRequest(f))) for f in queries]
            results[name] = _summary(times)
            _print(name, results[name])
        # Grouped by company (at most 3 jobs a company, "N more at ..."): a common term
        # or filters, the list the web app shows with group=company.
        grouped = classes["common_term"][: n // 2] + classes["filters_only"][: n - n // 2]
        times = [
            _timed(lambda f=f: search.search(conn, SearchRequest(f, group="company")))
            for f in grouped
        ]
        results["grouped"] = _summary(times)
        _print("grouped", results["grouped"])
        # The counting queries alone first (as between a sync's commit and the build of
        # its bitmaps), then with the bitmaps a sync leaves behind: every request exact.
        results.update(measure_typing(conn, rng, n))
        results.update(_count_classes(conn, classes, n, sample_n, prefix="query_"))
        results["facet_bits_build"] = {"s": round(build_bitmaps(Database(owner)), 1)}
        results.update(_count_classes(conn, classes, n, n))
        mixed = classes["common_term"][: n // 2] + classes["filters_only"][: n - n // 2]
        results["facet_bits_build"]["answered_share"] = _bitmap_share(conn, mixed)
    results["facets_during_sync"] = measure_during_sync(reader, owner, mixed)
    results.update(measure_peer(owner, reader, classes, n))
    with psycopg.connect(owner, autocommit=True) as conn:  # the baseline: rank everything
        shares = _match_shares(conn)
        terms = classes["common_term"] + classes["rare_term"] + classes["prefix"]
        times = [_timed(lambda f=f: _naive(conn, f.q)) for f in rng.sample(terms, sample_n)]
        results["naive_rank_count"] = _summary(times)
        _print("naive baseline", results["naive_rank_count"])
    return results, shares


LIST_CLASSES = ("common_term", "rare_term", "prefix", "filters_only", "term_3_filters")


def measure_peer(
    owner: str, reader: str, classes: dict[str, list[Filters]], n: int
) -> dict[str, dict[str, float]]:
    """The same rows and requests in tantivy (bench/_serving_peer.py): each list class,
    and facets for the requests the facet classes time; how many postings each side
    says the common terms match (their totals' ratio, serving / peer: the semantics
    differ where the peer module says)."""
    results: dict[str, dict[str, float]] = {}
    with peer.built(owner, search.GROUPS) as index:
        print(f"  peer (tantivy): {index.rows:,} rows indexed in {index.build_s}s", flush=True)
        searcher = index.searcher()
        for name in LIST_CLASSES:
            queries = classes[name]
            for f in queries[:5]:  # warm up as the serving side was
                peer.search(index, searcher, f)
            times = [_timed(lambda f=f: peer.search(index, searcher, f)) for f in queries]
            results[f"peer_{name}"] = _summary(times)
            _print(f"peer {name}", results[f"peer_{name}"])
        mixed = classes["common_term"][: n // 2] + classes["filters_only"][: n - n // 2]
        times = [_timed(lambda f=f: peer.facets(index, searcher, f)) for f in mixed]
        results["peer_facets"] = _summary(times)
        _print("peer facets", results["peer_facets"])
        with psycopg.connect(reader, autocommit=True, row_factory=dict_row) as conn:
            ratios = []
            for f in classes["common_term"][:SAMPLE]:
                ours = search.counts(conn, f, ("source",), budget_ms=2900, top_n=1).total
                theirs = peer.facets(index, searcher, f)["total"]
                if ours is not None and theirs:
                    ratios.append(ours / theirs)
        results["peer_match_ratio"] = {
            "p50": round(statistics.median(ratios), 3) if ratios else None,
            "min": round(min(ratios), 3) if ratios else None,
        }
        print(f"  matches serving / peer: {results['peer_match_ratio']}", flush=True)
    return results


def peer_figures(figures: dict[str, dict[str, float]]) -> dict[str, Any]:
    """Per class both sides' p50/p95 and serving / peer (below 1: serving is faster)."""
    out: dict[str, Any] = {}
    for name in (*LIST_CLASSES, "facets"):
        ours, theirs = figures[name], figures[f"peer_{name}"]
        for q in ("p50_ms", "p95_ms"):
            out[f"peer_{name}_{q}"] = theirs[q]
            out[f"peer_{name}_{q.split('_')[0]}_ratio"] = round(ours[q] / theirs[q], 2)
    ours_p95 = max(figures[c]["p95_ms"] for c in LIST_CLASSES)
    theirs_p95 = max(figures[f"peer_{c}"]["p95_ms"] for c in LIST_CLASSES)
    out["peer_search_p95_ratio"] = round(ours_p95 / theirs_p95, 2)
    out["peer_facets_p95_ratio"] = round(
        figures["facets"]["p95_ms"] / figures["peer_facets"]["p95_ms"], 2
    )
    out["peer_match_ratio_p50"] = figures["peer_match_ratio"]["p50"]
    return out


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
        refresh_s = keep_unfiltered_counts(db)
        with db.connect() as conn:  # as a sync does after its writes
            lexicon.keep_shares(conn)
        roles.provision_web_role(db, "bench-password")
        reader = roles.reader_url(owner, "bench-password")
        figures, shares = measure(reader, owner, queries, random.Random(SEED))
        storage = storage_figures(db, rows)
    finally:
        if not keep:
            with psycopg.connect(admin_url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    settings = _server_settings(admin_url)
    print(f"  server settings: {settings}", flush=True)
    lists = [
        figures[c] for c in ("common_term", "rare_term", "prefix", "filters_only", "term_3_filters")
    ]
    return {
        "rows": rows,
        "queries_per_class": queries,
        "server_settings": settings,
        "load_s": round(load_s, 1),
        "facet_totals_refresh_s": round(refresh_s, 1),
        "search_p50_ms": max(c["p50_ms"] for c in lists),
        "search_p95_ms": max(c["p95_ms"] for c in lists),
        "facets_p95_ms": figures["facets"]["p95_ms"],
        "facets_p50_ms": figures["facets"]["p50_ms"],
        "facets_budgeted_p95_ms": figures["facets_budgeted"]["p95_ms"],
        "facets_unavailable_share": figures["facets_budgeted"]["unavailable_share"],
        "facets_bitmap_answered_share": figures["facet_bits_build"]["answered_share"],
        "facet_bits_build_s": figures["facet_bits_build"]["s"],
        "facets_during_sync_p50_ms": figures["facets_during_sync"]["p50_ms"],
        "facets_during_sync_p95_ms": figures["facets_during_sync"]["p95_ms"],
        "facets_during_sync_fast_share": figures["facets_during_sync"]["fast_share"],
        "facet_update_1pct_s": figures["facets_during_sync"]["facet_update_1pct_s"],
        "facets_query_p95_ms": figures["query_facets"]["p95_ms"],
        "facets_query_p50_ms": figures["query_facets"]["p50_ms"],
        "facets_query_unavailable_share": figures["query_facets_budgeted"]["unavailable_share"],
        "stats_p95_ms": figures["stats"]["p95_ms"],
        "stats_budgeted_p95_ms": figures["stats_budgeted"]["p95_ms"],
        "stats_unavailable_share": figures["stats_budgeted"]["unavailable_share"],
        "stats_query_p95_ms": figures["query_stats"]["p95_ms"],
        "typeahead_p50_ms": figures["typeahead"]["p50_ms"],
        "typeahead_p95_ms": figures["typeahead"]["p95_ms"],
        "grouped_p50_ms": figures["grouped"]["p50_ms"],
        "grouped_p95_ms": figures["grouped"]["p95_ms"],
        "typo_p50_ms": figures["typo"]["p50_ms"],
        "typo_p95_ms": figures["typo"]["p95_ms"],
        "typo_corrected_share": figures["typo"]["corrected_share"],
        "rare_term_p50_ms": figures["rare_term"]["p50_ms"],
        **storage,
        **peer_figures(figures),
        "common_term_match_share": shares,
        "naive_p50_ms": figures["naive_rank_count"]["p50_ms"],
        "naive_p95_ms": figures["naive_rank_count"]["p95_ms"],
        "classes": figures,
        "targets": {
            "search_p95_ms": LIST_P95_MS,
            "search_p50_ms": LIST_P50_MS,
            "facets_p95_ms": FACETS_P95_MS,
        },
    }


# What serving keeps for its rows: the table with its TOAST and indexes, the facet
# structures, the lexicon and the typeahead suggestions.
SERVING_RELATIONS = (
    "serving.jobs", "serving.facet_slots", "serving.facet_bits", "serving.facet_companies",
    "serving.facet_totals", "serving.lexicon", "serving.suggestions",
)  # fmt: skip


def storage_figures(db: Database, rows: int) -> dict[str, Any]:
    """`serving_bytes_per_row` (every relation above, with TOAST and indexes, over the
    rows) and the share of search_tsv's lexemes that are stems (serving.stem_lexemes),
    on a sample: what stemming costs in the text index."""
    with db.connect() as conn:
        sizes = {
            name: conn.execute(
                "SELECT pg_total_relation_size(to_regclass(%s)) AS b", (name,)
            ).fetchone()["b"]
            or 0
            for name in SERVING_RELATIONS
        }
        stems = conn.execute(
            """SELECT avg(s.stems::float8 / nullif(s.all_lexemes, 0)) AS share
               FROM (SELECT length(j.search_tsv) AS all_lexemes,
                            (SELECT count(*) FROM unnest(j.search_tsv) u
                             WHERE starts_with(u.lexeme, '~')) AS stems
                     FROM serving.jobs j TABLESAMPLE SYSTEM (1)) AS s"""
        ).fetchone()["share"]
    total = sum(sizes.values())
    print(
        f"  storage: {total / 2**20:,.0f} MB, {total / rows:,.0f} bytes a row "
        f"(jobs {sizes['serving.jobs'] / 2**20:,.0f} MB); stems {stems or 0:.0%} of lexemes",
        flush=True,
    )
    return {
        "serving_bytes_per_row": round(total / rows),
        "serving_jobs_bytes_per_row": round(sizes["serving.jobs"] / rows),
        "stem_lexemes_share": round(stems or 0.0, 3),
    }


# The throwaway cluster gets the memory a serving database on this machine would have:
# PostgreSQL's default 128 MB of shared buffers holds a tenth of 1M published rows, so
# every counting scan would read its pages through the kernel again. 2 GB is under a
# tenth of this machine's RAM (the usual advice is a quarter). --admin-url runs keep
# the server's own settings (printed).
BENCH_SERVER_SETTINGS = {"shared_buffers": "2GB", "effective_cache_size": "8GB"}


def _tuned_cluster(
    root: Path, ensure_cluster: Callable[..., Any], stop_cluster: Callable[..., Any]
):
    cluster = ensure_cluster(root, databases=(), durable=False, password_auth=False)
    with psycopg.connect(cluster.url("postgres"), autocommit=True) as conn:
        for name, value in BENCH_SERVER_SETTINGS.items():
            conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
    stop_cluster(root)  # shared_buffers takes a restart
    return ensure_cluster(root, databases=(), durable=False, password_auth=False)


def _server_settings(admin_url: str) -> dict[str, str]:
    with psycopg.connect(admin_url) as conn:
        return {name: conn.execute(f"SHOW {name}").fetchone()[0] for name in BENCH_SERVER_SETTINGS}


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
            cluster = _tuned_cluster(root, ensure_cluster, stop_cluster)
            figures = run(cluster.url("postgres"), args.rows, args.queries)
        finally:
            stop_cluster(root)
            shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
