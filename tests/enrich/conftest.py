"""Enrichment fixtures: postings with chosen texts in a real database, and the
sandbox's Gemini endpoint reached by the real google-genai SDK over a socket."""

from __future__ import annotations

from collections.abc import Sequence

import httpx
import pytest

from pipeline.db.connect import Database
from pipeline.enrich.settings import EnrichSettings, load_enrich_settings
from sandbox.server import RunningSandbox


def seed_postings(
    db: Database,
    descriptions: Sequence[str],
    *,
    source: str = "s",
    title: str = "Software Engineer",
    quality: str = "accepted",
) -> list[int]:
    """One active posting per description, each with a current parse result."""
    ids: list[int] = []
    with db.connect() as conn:
        conn.execute(
            "INSERT INTO ref.sources (id, platform, display_name, parser, config, config_hash) "
            "VALUES (%s, 'greenhouse', %s, 'greenhouse', '{}', 'h') ON CONFLICT DO NOTHING",
            (source, source),
        )
        board = conn.execute(
            "INSERT INTO crawl.boards (source_id, board_key, url, lane, host) "
            "VALUES (%s, 'b', 'http://x', 'greenhouse', 'x') "
            "ON CONFLICT (source_id, board_key) DO UPDATE SET url = EXCLUDED.url RETURNING id",
            (source,),
        ).fetchone()["id"]
        for n, description in enumerate(descriptions):
            sha = f"{source}{n:063d}"[-64:]
            conn.execute(
                "INSERT INTO crawl.raw_objects (sha256, object_key, byte_length, source_id, url, state) "
                "VALUES (%s, %s, 1, %s, 'http://x', 'ready') ON CONFLICT DO NOTHING",
                (sha, sha, source),
            )
            posting = conn.execute(
                "INSERT INTO core.postings (source_id, external_id, board_id, url) "
                "VALUES (%s, %s, %s, 'http://x') RETURNING id",
                (source, f"{source}-{n}-{len(ids)}", board),
            ).fetchone()["id"]
            conn.execute(
                "INSERT INTO core.parse_results (posting_id, raw_sha256, parser_name, parser_version, "
                "quality, is_current, title, description_text) VALUES (%s, %s, 'greenhouse', '1', %s, true, %s, %s)",
                (posting, sha, quality, title, description),
            )
            ids.append(posting)
        conn.commit()
    return ids


def change_text(db: Database, posting_id: int, description: str) -> None:
    """A new current parse (new content) for the posting."""
    with db.connect() as conn:
        old = conn.execute(
            "UPDATE core.parse_results SET is_current = false WHERE posting_id = %s AND is_current "
            "RETURNING raw_sha256, title",
            (posting_id,),
        ).fetchone()
        conn.execute(
            "INSERT INTO core.parse_results (posting_id, raw_sha256, parser_name, parser_version, "
            "quality, is_current, title, description_text) VALUES (%s, %s, 'greenhouse', "
            "(SELECT (max(parser_version::int) + 1)::text FROM core.parse_results WHERE posting_id = %s), "
            "'accepted', true, %s, %s)",
            (posting_id, old["raw_sha256"], posting_id, old["title"], description),
        )
        conn.commit()


class GeminiStub:
    def __init__(self, sandbox: RunningSandbox) -> None:
        self.url = sandbox.url

    def answer(self, mode: str = "truthful", script: Sequence[dict] = ()) -> None:
        reply = httpx.post(
            f"{self.url}/_sandbox/gemini", json={"mode": mode, "script": list(script)}
        )
        reply.raise_for_status()

    def log(self) -> list[dict]:
        return httpx.get(f"{self.url}/_sandbox/gemini/log").json()["requests"]


@pytest.fixture
def gemini(sandbox: RunningSandbox) -> GeminiStub:
    stub = GeminiStub(sandbox)
    httpx.post(f"{sandbox.url}/_sandbox/gemini/reset").raise_for_status()
    return stub


@pytest.fixture
def llm_settings(sandbox: RunningSandbox, monkeypatch: pytest.MonkeyPatch) -> EnrichSettings:
    monkeypatch.setenv("GEMINI_API_KEY", "sandbox-test-key")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    return load_enrich_settings(
        base_url=sandbox.url,
        rpm=1000,
        tpm=10_000_000,
        rpd=100_000,
        budget_wait_s=5,
        backoff_base_s=0.2,
        backoff_cap_s=1,
    )
