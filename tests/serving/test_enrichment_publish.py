"""The enrichment is published content: the sync carries the current result into
serving (skill key arrays, bounds, enums, the compact evidence), an enrichment made
after a posting was published re-publishes it in the next incremental sync, and
verification covers the new columns."""

from __future__ import annotations

import json
from typing import Any

import pytest

from serving_sync.verify import VerificationFailed
from tests.serving.conftest import Seeder

_KEY = iter(range(1, 10_000))


def value(v: Any, evidence: str, start: int) -> dict[str, Any]:
    return {"value": v, "evidence": evidence, "start": start, "end": start + len(evidence)}


def enrich(
    seed: Seeder,
    posting: int,
    *,
    fields: dict[str, Any] | None = None,
    required: list[tuple[str, str, int]] = (),  # type: ignore[assignment]
    preferred: list[tuple[str, str, int]] = (),  # type: ignore[assignment]
    key: str | None = None,
) -> str:
    """Store a result and make it current, as pipeline/enrich/store.py does."""
    key = key or f"key-{next(_KEY)}"

    def skills(items: list[tuple[str, str, int]]) -> str:
        return json.dumps([{"key": k, **value(k, e, s)} for k, e, s in items])

    with seed.dbs.db.connect() as conn:
        conn.execute(
            """INSERT INTO enrich.results (posting_id, result_key, text_hash, provider, model,
                   prompt_version, schema_version, fields, skills_required, skills_preferred)
               VALUES (%s, %s, 'h', 'rules', 'rules', '1', '1', %s, %s, %s)
               ON CONFLICT (posting_id, result_key) DO NOTHING""",
            (posting, key, json.dumps(fields or {}), skills(required), skills(preferred)),
        )
        conn.execute(
            "UPDATE enrich.results SET is_current = false "
            "WHERE posting_id = %s AND is_current AND result_key <> %s",
            (posting, key),
        )
        conn.execute(
            "UPDATE enrich.results SET is_current = true WHERE posting_id = %s AND result_key = %s",
            (posting, key),
        )
    return key


FIELDS = {
    "experience_min": value(3, "3-5 years", 10),
    "experience_max": value(5, "3-5 years", 10),
    "seniority": value("senior", "Senior", 0),
    "work_mode": value("remote", "remote", 30),
    "education": value("bachelor", "Bachelor", 40),
    "employment_type": value("full_time", "full-time", 50),
}


def test_a_posting_enriched_after_it_was_published_is_republished_incrementally(
    seed: Seeder,
) -> None:
    ids = seed.postings(3, remote="unknown")  # no field: the description's work mode stands
    seed.sync()
    assert seed.jobs()[ids[1]]["enriched_at"] is None  # not extracted (yet)
    enrich(seed, ids[1], fields=FIELDS, required=[("python", "Python", 60)],
           preferred=[("docker", "Docker", 70)])  # fmt: skip
    report = seed.sync()
    assert (report.mode, report.staged, report.updated, report.unchanged) == (
        "incremental", 1, 1, 2,
    )  # fmt: skip
    job = seed.jobs()[ids[1]]
    assert (job["experience_min"], job["experience_max"]) == (3, 5)
    assert (job["seniority"], job["work_mode"], job["education"]) == (
        "senior",
        "remote",
        "bachelor",
    )
    assert job["extracted_employment_type"] == "full_time"
    assert (job["skills_required"], job["skills_preferred"]) == (["python"], ["docker"])
    assert job["skills_all"] == ["python", "docker"]
    assert job["enrichment"]["seniority"] == FIELDS["seniority"]
    assert job["enrichment"]["skills_required"] == [
        {"key": "python", **value("python", "Python", 60)}
    ]
    assert job["enriched_at"] is not None
    assert seed.last_run()["status"] == "applied"


def test_a_changed_enrichment_result_is_republished_and_the_same_values_move_nothing(
    seed: Seeder,
) -> None:
    posting = seed.posting()
    first = enrich(seed, posting, required=[("python", "Python", 60)])
    seed.sync()
    enrich(seed, posting, required=[("python", "Python", 60), ("sql", "SQL", 70)])
    report = seed.sync()
    assert (report.staged, report.updated) == (1, 1)
    assert seed.jobs()[posting]["skills_required"] == ["python", "sql"]
    stamp = seed.sql("SELECT publish_xid FROM core.postings WHERE id = %s", (posting,))
    enrich(seed, posting, required=[("python", "Python", 60), ("sql", "SQL", 70)], key="same-again")
    assert seed.sql("SELECT publish_xid FROM core.postings WHERE id = %s", (posting,)) == stamp
    assert seed.sync().staged == 0
    enrich(seed, posting, key=first)  # an earlier version becomes current again
    assert seed.sync().updated == 1
    assert seed.jobs()[posting]["skills_required"] == ["python"]


def test_a_hand_edited_skill_array_fails_verification_and_the_full_reconcile_repairs_it(
    seed: Seeder,
) -> None:
    posting = seed.posting()
    enrich(seed, posting, required=[("python", "Python", 60)])
    seed.sync()
    seed.serving("UPDATE serving.jobs SET skills_required = '{rust}' WHERE id = %s", (posting,))
    with pytest.raises(VerificationFailed, match=rf"written from: ids \[{posting}\]"):
        seed.sync()
    assert seed.last_run()["status"] == "failed"
    repaired = seed.sync()
    assert repaired.mode == "full"
    assert seed.last_run()["status"] == "applied"
    assert seed.jobs()[posting]["skills_required"] == ["python"]


def test_a_posting_without_a_result_publishes_no_requirements_but_not_extracted(
    seed: Seeder,
) -> None:
    posting = seed.posting()
    seed.sync()
    job = seed.jobs()[posting]
    assert (job["skills_required"], job["skills_preferred"]) == ([], [])
    assert (job["enrichment"], job["enriched_at"], job["seniority"]) == (None, None, None)


def test_the_enrichment_stamps_migration_stamps_postings_enriched_before_it(
    seed: Seeder,
) -> None:
    from pipeline.db import migrate

    ids = seed.postings(2)
    seed.sync()
    # Before the enrichment-stamps migration the enrichment is not yet published content.
    migrate.downgrade(seed.dbs.db, "serving_change_stamps")
    # The stamps, not a sync: this code's sync reads columns of later revisions.
    stamps = "SELECT id, publish_xid FROM core.postings ORDER BY id"
    before = seed.sql(stamps)
    enrich(seed, ids[0], required=[("python", "Python", 60)])
    assert seed.sql(stamps) == before  # without the migration the new result moves no stamp
    migrate.upgrade(seed.dbs.db)
    report = seed.sync()
    assert (report.mode, report.staged, report.updated) == ("incremental", 1, 1)
    assert seed.jobs()[ids[0]]["skills_required"] == ["python"]


def test_removing_the_current_result_republishes_the_posting_as_not_extracted(
    seed: Seeder,
) -> None:
    posting = seed.posting()
    enrich(seed, posting, required=[("python", "Python", 60)])
    seed.sync()
    seed.sql("DELETE FROM enrich.results WHERE posting_id = %s", (posting,))
    assert seed.sync().updated == 1
    job = seed.jobs()[posting]
    assert (job["skills_required"], job["enriched_at"]) == ([], None)
