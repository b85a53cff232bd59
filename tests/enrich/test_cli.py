"""`jobharbor enrich`, `enrich show` and `enrich preview` on a real database; the
rules provider and the sandbox's Gemini endpoint through the real SDK."""

from __future__ import annotations

import json

import pytest

from pipeline.cli import main
from pipeline.db.connect import Database
from pipeline.enrich import store
from tests.enrich.conftest import seed_postings

TEXT = (
    "Requirements:\n- 4+ years of experience with Go and PostgreSQL\n"
    "Nice to have: Kubernetes\nThis role is fully remote."
)


@pytest.fixture
def env(databases, tmp_path, monkeypatch):
    monkeypatch.setenv("JOBHARBOR_DATABASE_URL", databases.db.url)
    monkeypatch.setenv("JOBHARBOR_SERVING_DATABASE_URL", databases.serving.url)
    monkeypatch.setenv("JOBHARBOR_DATA_DIR", str(tmp_path))
    return databases


def test_enrich_prints_what_it_did_and_show_prints_each_excerpt(env, capsys) -> None:
    (pid,) = seed_postings(env.db, [TEXT])
    assert main(["enrich", "--provider", "rules", "--limit", "5", "--max-requests", "5"]) == 0
    out = capsys.readouterr().out
    assert "sent: 1 requests for 1 postings" in out
    assert "valid: 1 postings stored (0 with refused values)" in out
    assert "rejected values by reason: none" in out
    assert "cooled down: no" in out
    assert main(["enrich", "show", str(pid)]) == 0
    shown = capsys.readouterr().out
    assert "experience_min   4" in shown
    assert '"4+ years"' in shown
    assert "go " in shown
    assert '"Go"' in shown
    assert main(["enrich", "show", "999999"]) == 1


def test_enrich_through_the_gemini_endpoint(env, gemini, sandbox, monkeypatch, capsys) -> None:
    seed_postings(env.db, [TEXT, TEXT.replace("4+", "2+")])
    gemini.answer("adversarial")
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    monkeypatch.setenv("JOBHARBOR_LLM_BASE_URL", sandbox.url)
    monkeypatch.setenv("JOBHARBOR_LLM_GROUP_SIZE", "2")
    assert main(["enrich", "--max-requests", "3"]) == 0
    out = capsys.readouterr().out
    assert "sent: 1 requests for 2 postings" in out
    assert "valid: 2 postings stored (2 with refused values)" in out


def test_enrich_without_a_key_is_a_configuration_error(env, monkeypatch, capsys) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    assert main(["enrich"]) == 2
    assert "GEMINI_API_KEY" in capsys.readouterr().err


def queue_count(db: Database) -> int:
    with db.connect() as conn:
        return conn.execute("SELECT count(*) AS n FROM enrich.queue").fetchone()["n"]


def test_backfill_preview_estimates_and_changes_nothing(env, capsys) -> None:
    ids = seed_postings(env.db, [TEXT, TEXT + " Extra.", TEXT + " More."])
    assert main(["enrich", "preview", "--provider", "rules", "--ids", f"{ids[0]},{ids[1]}"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["selected"], shown["to_send"], shown["estimated_requests"]) == (2, 2, 2)
    assert shown["estimated_tokens"] > 0
    assert queue_count(env.db) == 0
    main(["enrich", "--provider", "rules"])
    capsys.readouterr()
    main(["enrich", "preview", "--provider", "rules"])
    after = json.loads(capsys.readouterr().out)
    assert (after["selected"], after["already_done"], after["to_send"]) == (3, 3, 0)


def test_an_expired_lease_is_claimed_again(env) -> None:
    seed_postings(env.db, [TEXT])
    with env.db.connect() as conn:
        store.refresh_queue(conn, store.Selection(), "config")
        first = store.claim(conn, "a", 1, store.Selection(), lease_s=0)
        second = store.claim(conn, "b", 1, store.Selection(), lease_s=60)
        third = store.claim(conn, "c", 1, store.Selection(), lease_s=60)
    assert [r["posting_id"] for r in first] == [r["posting_id"] for r in second]
    assert third == []


def test_a_worker_that_lost_its_lease_writes_nothing(env) -> None:
    from pipeline.enrich.evidence import Checked
    from pipeline.enrich.provider import Usage

    seed_postings(env.db, [TEXT])
    with env.db.connect() as conn:
        store.refresh_queue(conn, store.Selection(), "config")
        (row,) = store.claim(conn, "slow", 1, store.Selection(), lease_s=0)
        (taken,) = store.claim(conn, "fast", 1, store.Selection(), lease_s=60)
        item = {**row, "text_hash": "t", "result_key": "k"}
        meta = {
            "provider": "p",
            "model": "m",
            "prompt_version": "1",
            "schema_version": "1",
            "settings": {},
        }
        assert store.store_result(conn, "slow", item, meta, Checked(), Usage()) is False
        assert store.store_result(
            conn, "fast", {**taken, "text_hash": "t", "result_key": "k"}, meta, Checked(), Usage()
        )
        n = conn.execute("SELECT count(*) AS n FROM enrich.results").fetchone()["n"]
    assert n == 1
