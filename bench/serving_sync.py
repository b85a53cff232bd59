"""Serving sync benchmark: what an incremental sync costs next to a full reload.

Everything real and local: a private PostgreSQL cluster (durable, as in production)
with the authoritative and the serving database, N synthetic published postings
generated directly in SQL (a realistic mix of titles, companies, countries, unknown
locations, remote, salaries, 1-3 KB descriptions, reposts, a share closed), and the
real sync (serving_sync.reconcile) run in this process.

Measured, in order:
  load      the first sync into an empty serving database (informational)
  1pct      an incremental sync after 1% of published rows changed (60% edited, 20%
            closed, 20% new postings)
  nochange  an incremental sync with nothing changed
  reconcile a full reconcile (`jobharbor sync --full`) after another 1% changed: every
            row read, staged and compared, the changed ones written
  reload    a full reload of the same rows: serving emptied, every row loaded again
  rss       the peak RSS of this process (generation runs inside PostgreSQL, so this
            is the sync's own footprint)

Prints each figure, then ONE line of JSON:
  {"rows": ..., "sync_1pct_vs_full": ..., "sync_nochange_vs_full": ...,
   "sync_peak_rss_mb": ..., ...}
where "full" is the full reload; the `*_vs_full_reconcile` keys compare with the
full reconcile instead.

Usage: python bench/serving_sync.py [--rows 100000] [--keep]
Targets at 1M rows (python bench/serving_sync.py --rows 1000000): 1% changed >= 10x
faster than a full reload, no change >= 50x faster, peak RSS <= 300 MB.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.db import migrate  # noqa: E402
from pipeline.db.connect import Database  # noqa: E402
from pipeline.db.embedded import ensure_cluster, stop_cluster  # noqa: E402
from pipeline.progress import Progress  # noqa: E402
from serving_sync import schema  # noqa: E402
from serving_sync.reconcile import SyncReport, reconcile  # noqa: E402

SOURCES = ("greenhouse", "lever", "ashby", "workday", "vieclam")

# Word pools the generator draws from (by hash, so a run is reproducible).
_SETUP = r"""
CREATE TEMP TABLE words AS SELECT * FROM (VALUES
  (ARRAY['Software Engineer','Data Engineer','Product Manager','Designer','Accountant',
         'Sales Manager','DevOps Engineer','Data Scientist','QA Engineer','Recruiter',
         'Backend Developer','Frontend Developer','Kế toán','Kỹ sư phần mềm','Nhân viên kinh doanh',
         'Customer Success Manager','Marketing Lead','Security Engineer','Nurse','Teacher'],
   ARRAY['Senior ','Junior ','Lead ','Staff ','','','Principal ','Intern '],
   ARRAY['DE','US','GB','FR','VN','SG','NL','IN','CA','AU','ES','PL'],
   ARRAY['Berlin','New York','London','Paris','Hà Nội','Singapore','Amsterdam','Bangalore',
         'Toronto','Sydney','Madrid','Warsaw'],
   ARRAY['yes','hybrid','unknown','unknown'],
   ARRAY['full_time','part_time','contract',NULL],
   ARRAY['engineering','sales','design','finance',NULL],
   ARRAY['alpha','bravo','charlie','delta','echo','foxtrot','golf','hotel','india','juliet',
         'kilo','lima','mike','november','oscar','papa','quebec','romeo','sierra','tango',
         'customers','platform','scale','team','build','ship','data','growth','remote','office',
         'benefits','salary','learning','mentoring','cloud','python','postgres','kubernetes',
         'phát triển','sản phẩm','khách hàng','đội ngũ','lương','thưởng'])
) AS t(roles, levels, countries, cities, remotes, employment, jobtypes, vocab);
CREATE TEMP TABLE paragraphs AS
SELECT n, (SELECT string_agg(vocab[1 + (hashint4(n * 1000 + k) & 2147483647) % array_length(vocab, 1)], ' ')
           FROM generate_series(1, 120 + n % 200) AS k) AS text
FROM words, generate_series(0, 499) AS n;
"""

_SOURCES = """
INSERT INTO ref.sources (id, platform, display_name, parser, config, config_hash)
SELECT s, s, initcap(s), s, '{}', 'bench' FROM unnest(%(sources)s::text[]) AS s;
INSERT INTO crawl.boards (source_id, board_key, url, lane, host)
SELECT s, 'main', 'http://bench/' || s, s, 'bench' FROM unnest(%(sources)s::text[]) AS s;
INSERT INTO crawl.raw_objects (sha256, object_key, byte_length, source_id, url, state)
SELECT md5(s) || md5(s), 'bench/' || s, 1, s, 'http://bench/' || s, 'ready'
FROM unnest(%(sources)s::text[]) AS s;
"""

# Postings with ids first..last: ~90% active, ~4% missing, ~6% closed on evidence.
_POSTINGS = """
INSERT INTO core.postings (id, source_id, external_id, board_id, url, title, first_seen_at,
                           last_seen_at, status, closed_at, close_reason, repost_key, opening_key)
OVERRIDING SYSTEM VALUE
SELECT i, b.source_id, i::text, b.id, 'http://bench/' || b.source_id || '/' || i, NULL,
       now() - make_interval(days => i %% 400), now() - make_interval(hours => i %% 20),
       CASE WHEN i %% 100 < 90 THEN 'active' WHEN i %% 100 < 94 THEN 'missing'
            WHEN i %% 100 < 97 THEN 'expired' WHEN i %% 100 < 99 THEN 'not_found' ELSE 'filtered' END,
       CASE WHEN i %% 100 >= 94 THEN now() - make_interval(days => i %% 120) END,
       CASE WHEN i %% 100 >= 94 THEN 'bench' END,
       CASE WHEN i %% 10 < 3 THEN 'role-' || (i %% 50000) END,
       CASE WHEN i %% 10 < 3 THEN 'opening-' || (i %% 70000) END
FROM generate_series(%(first)s::int, %(last)s::int) AS i
JOIN crawl.boards AS b ON b.source_id = (%(sources)s::text[])[1 + i %% 5];
"""

_RESULTS = """
INSERT INTO core.parse_results (posting_id, raw_sha256, parser_name, parser_version, quality,
    is_current, content_hash, title, company, department, url, location_text, location, remote,
    employment_type, job_type, posted_at, posted_precision, salary_min, salary_max,
    salary_currency, salary_period, description_text)
SELECT p.id, md5(p.source_id) || md5(p.source_id), p.source_id, '1',
       CASE WHEN p.id %% 50 = 0 THEN 'partial' ELSE 'accepted' END, true, md5(p.id::text),
       w.levels[1 + p.id %% 8] || w.roles[1 + (p.id / 7) %% 20],
       'Company ' || (hashint4(p.id::int) & 2147483647) %% 5000,
       w.jobtypes[1 + p.id %% 5], p.url,
       CASE WHEN p.id %% 7 = 0 THEN NULL ELSE w.cities[1 + p.id %% 12] END,
       CASE WHEN p.id %% 7 = 0 THEN NULL
            WHEN p.id %% 11 = 0 THEN jsonb_build_object('countries', '[]'::jsonb, 'unresolved', jsonb_build_array('Atlantis'))
            ELSE jsonb_build_object('countries', jsonb_build_array(w.countries[1 + p.id %% 12]),
                 'offices', jsonb_build_array(jsonb_build_object('city', w.cities[1 + p.id %% 12],
                                                                 'region', w.cities[1 + p.id %% 12]))) END,
       w.remotes[1 + p.id %% 4], w.employment[1 + p.id %% 4], w.jobtypes[1 + p.id %% 5],
       CASE WHEN p.id %% 5 = 0 THEN NULL ELSE now() - make_interval(days => (p.id %% 90)::int) END,
       CASE WHEN p.id %% 5 = 0 THEN 'unknown' ELSE 'day' END,
       CASE WHEN p.id %% 3 = 0 THEN 40000 + p.id %% 60000 END,
       CASE WHEN p.id %% 3 = 0 THEN 60000 + p.id %% 90000 END,
       CASE WHEN p.id %% 3 = 0 THEN (ARRAY['EUR','USD','VND'])[1 + p.id %% 3] END,
       CASE WHEN p.id %% 3 = 0 THEN 'year' END,
       a.text || E'\n\n' || b.text
FROM core.postings AS p, words AS w, paragraphs AS a, paragraphs AS b
WHERE p.id BETWEEN %(first)s AND %(last)s AND a.n = p.id %% 500 AND b.n = (p.id * 7 + 3) %% 500;
"""


def generate(db: Database, rows: int) -> float:
    """`rows` published postings (plus the closed share) straight in SQL. Returns seconds."""
    started = time.monotonic()
    total = round(rows / 0.94)  # 94% of postings are published (active or missing)
    with db.connect() as conn:
        conn.execute(_SETUP)
        for statement in _SOURCES.split(";")[:-1]:
            conn.execute(statement, {"sources": list(SOURCES)})
        # Bulk generation is not the pipeline: the change-stamp triggers are off for it,
        # and every generated row carries the generating transaction's stamp.
        conn.execute("ALTER TABLE core.postings DISABLE TRIGGER USER")
        conn.execute("ALTER TABLE core.parse_results DISABLE TRIGGER USER")
        step = 200_000
        with Progress("serving_sync: postings generated", total) as progress:
            for first in range(1, total + 1, step):
                last = min(total, first + step - 1)
                params = {"first": first, "last": last, "sources": list(SOURCES)}
                conn.execute(_POSTINGS, params)
                conn.execute(_RESULTS, params)
                progress.advance(last - first + 1)
        conn.execute("UPDATE core.postings SET publish_md5 = core.published_result_md5(id)")
        conn.execute("ALTER TABLE core.postings ENABLE TRIGGER USER")
        conn.execute("ALTER TABLE core.parse_results ENABLE TRIGGER USER")
        conn.execute(
            "SELECT setval(pg_get_serial_sequence('core.postings', 'id'), (SELECT max(id) FROM core.postings))"
        )
    with db.connect(autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE core.postings")
        conn.execute("VACUUM ANALYZE core.parse_results")
    return time.monotonic() - started


def change(db: Database, rows: int, salt: int) -> int:
    """Change 1% of published rows as a day of the pipeline would: 60% edited (a new
    current parse result), 20% closed on evidence, 20% new postings. Returns how many."""
    n = max(1, rows // 100)
    edits, closes, new = n * 6 // 10, n * 2 // 10, n - n * 6 // 10 - n * 2 // 10
    with db.connect() as conn:
        conn.execute(
            """UPDATE core.parse_results SET title = title || ' v' || %(salt)s,
                      description_text = description_text || ' (updated)'
               WHERE is_current AND posting_id IN (
                   SELECT id FROM core.postings WHERE status = 'active'
                   ORDER BY hashint8(id + %(salt)s) LIMIT %(n)s)""",
            {"n": edits, "salt": salt},
        )
        conn.execute(
            """UPDATE core.postings SET status = 'expired', closed_at = now(), close_reason = 'bench'
               WHERE id IN (SELECT id FROM core.postings WHERE status = 'active'
                            ORDER BY hashint8(id * 3 + %(salt)s) LIMIT %(n)s)""",
            {"n": closes, "salt": salt},
        )
        first = conn.execute("SELECT max(id) + 1 AS n FROM core.postings").fetchone()["n"]
        conn.execute(_SETUP)
        params = {"first": first, "last": first + new - 1, "sources": list(SOURCES)}
        conn.execute(_POSTINGS.replace("CASE WHEN i %% 100 < 90", "CASE WHEN true"), params)
        conn.execute(_RESULTS, params)
    return edits + closes + new


def timed(label: str, source: Database, serving: Database, **options: object) -> float:
    started = time.monotonic()
    report: SyncReport = reconcile(source, serving, **options)  # type: ignore[arg-type]
    elapsed = time.monotonic() - started
    print(
        f"{label:<9} {elapsed:8.2f}s  mode={report.mode} staged={report.staged} "
        f"inserted={report.inserted} updated={report.updated} removed={report.removed} "
        f"liveness={report.liveness} closed={report.closed} source_rows={report.source_rows}"
    )
    return elapsed


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def run(source: Database, serving: Database, rows: int) -> dict[str, float | int]:
    print(f"generate  {generate(source, rows):8.2f}s  ({rows} published rows)")
    load = timed("load", source, serving)
    changed = change(source, rows, salt=1)
    one_pct = timed("1pct", source, serving)
    nochange = timed("nochange", source, serving)
    change(source, rows, salt=2)
    full = timed("reconcile", source, serving, full=True)
    empty(serving)
    reload = timed("reload", source, serving)
    rss = peak_rss_mb()
    print(f"rss       {rss:8.1f} MB peak")
    return {
        "rows": rows,
        "changed_rows": changed,
        "sync_load_s": round(load, 2),
        "sync_reload_s": round(reload, 2),
        "sync_full_reconcile_s": round(full, 2),
        "sync_1pct_s": round(one_pct, 3),
        "sync_nochange_s": round(nochange, 3),
        # Against a full reload of the same rows (serving emptied, everything loaded).
        "sync_1pct_vs_full": round(reload / one_pct, 1),
        "sync_nochange_vs_full": round(reload / nochange, 1),
        # Against `jobharbor sync --full` (every row read, staged and compared).
        "sync_1pct_vs_full_reconcile": round(full / one_pct, 1),
        "sync_nochange_vs_full_reconcile": round(full / nochange, 1),
        "sync_peak_rss_mb": round(rss, 1),
    }


def empty(serving: Database) -> None:
    """Serving as a fresh deployment has it: no rows, no sync history to build on."""
    with serving.connect() as conn:
        conn.execute(
            "TRUNCATE serving.jobs, serving.job_liveness, serving.closed_jobs, serving.sync_runs"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000, help="published rows to generate")
    parser.add_argument("--keep", action="store_true", help="keep the temporary data directory")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="jobharbor-bench-sync-"))
    cluster_root = work / "pg"
    try:
        cluster = ensure_cluster(cluster_root, databases=("bench", "bench_serving"))
        source, serving = Database(cluster.url("bench")), Database(cluster.url("bench_serving"))
        migrate.upgrade(source)
        schema.upgrade(serving)
        result = run(source, serving, args.rows)
        print(json.dumps(result))
        return 0
    finally:
        stop_cluster(cluster_root)
        if args.keep:
            print(f"data kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
