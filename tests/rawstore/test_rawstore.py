"""Raw store: both backends, the pending -> ready protocol, verification on read,
and recovery of uploads a crash left pending. S3 runs against a real S3-protocol
server on loopback (moto's server mode)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from pipeline.errors import ConfigError, RawIntegrityError
from pipeline.rawstore import RawArchive, RawStore, RecoveryReport, object_key, open_raw_store
from pipeline.settings import Settings

BODY = b'{"jobs": [], "meta": {"total": 0}}'


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"{host}:{port}"
    finally:
        server.stop()


@pytest.fixture(params=["file", pytest.param("s3", marks=pytest.mark.sandbox)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> RawStore:
    if request.param == "file":
        return open_raw_store(Settings(), (tmp_path / "raw").as_uri())
    endpoint = request.getfixturevalue("s3_endpoint")
    settings = Settings(
        s3_endpoint=endpoint,
        s3_access_key="testing",
        s3_secret_key="testing",
        s3_secure=False,
        s3_region="us-east-1",
    )
    return open_raw_store(
        settings, f"s3://raw-{tmp_path.name.lower().replace('_', '-')[-40:]}/jobharbor"
    )


def seed_source(db) -> None:
    with db.connect() as conn:
        conn.execute(
            "INSERT INTO ref.sources (id, platform, display_name, parser, config, config_hash) "
            "VALUES ('src', 'greenhouse', 'Src', 'greenhouse', '{}', 'h') ON CONFLICT DO NOTHING"
        )


def save(archive: RawArchive, body: bytes = BODY, **extra: object):
    """Store `body` as source `src` fetched from https://x/jobs (JSON, HTTP 200)."""
    values = {
        "source_id": "src",
        "body": body,
        "url": "https://x/jobs",
        "content_type": "application/json",
        "http_status": 200,
        **extra,
    }
    return archive.save(**values)


def raw_row(db, sha: str) -> dict:
    with db.connect() as conn:
        return conn.execute("SELECT * FROM crawl.raw_objects WHERE sha256 = %s", (sha,)).fetchone()


def test_keys_are_content_addressed_by_source_date_and_hash() -> None:
    sha = hashlib.sha256(BODY).hexdigest()
    assert (
        object_key("greenhouse", date(2026, 3, 4), sha, "application/json")
        == f"greenhouse/2026-03-04/{sha}.json"
    )
    assert object_key("site", date(2026, 3, 4), sha, "text/html; charset=utf-8").endswith(".html")
    assert object_key("site", date(2026, 3, 4), sha, None).endswith(".bin")


def test_store_round_trip_and_missing_keys(store: RawStore) -> None:
    store.put("a/b/c.json", BODY, "application/json")
    assert store.get("a/b/c.json") == BODY
    assert store.size("a/b/c.json") == len(BODY)
    assert store.size("a/b/missing.json") is None
    with pytest.raises(KeyError):
        store.get("a/b/missing.json")


def test_save_records_pending_then_ready_with_length_and_hash(databases, store: RawStore) -> None:
    seed_source(databases.db)
    with RawArchive(databases.db, store) as archive:
        ref = save(archive, fetched_at=datetime(2026, 5, 1, tzinfo=UTC))
        again = save(archive)
        assert archive.load(ref.sha256) == BODY
    row = raw_row(databases.db, ref.sha256)
    assert (row["state"], row["byte_length"], row["object_key"]) == (
        "ready",
        len(BODY),
        ref.object_key,
    )
    assert ref.sha256 == hashlib.sha256(BODY).hexdigest()
    assert ref.object_key == f"src/2026-05-01/{ref.sha256}.json"
    assert (ref.reused, again.reused) == (False, True)  # same bytes: stored once


def test_read_verifies_length_and_hash(databases, store: RawStore) -> None:
    seed_source(databases.db)
    with RawArchive(databases.db, store) as archive:
        ref = save(archive)
        store.put(
            ref.object_key, BODY.replace(b"0", b"1"), "application/json"
        )  # same length, other bytes
        with pytest.raises(RawIntegrityError, match="does not match its SHA-256"):
            archive.load(ref.sha256)
    row = raw_row(databases.db, ref.sha256)
    assert (row["state"], row["state_reason"]) == (
        "lost",
        "object content does not match its SHA-256",
    )


def test_truncated_object_is_detected(databases, tmp_path: Path) -> None:
    seed_source(databases.db)
    store = open_raw_store(Settings(), (tmp_path / "raw").as_uri())
    with RawArchive(databases.db, store) as archive:
        ref = save(archive)
        store.put(ref.object_key, BODY[:-3], "application/json")
        with pytest.raises(
            RawIntegrityError, match=f"has {len(BODY) - 3} bytes, expected {len(BODY)}"
        ):
            archive.load(ref.sha256)


def _crash_after_claim(databases, sha: str, key: str, body: bytes) -> None:
    """What a worker leaves when it dies between recording `pending` and `ready`."""
    with databases.db.connect() as conn:
        conn.execute(
            "INSERT INTO crawl.raw_objects (sha256, object_key, byte_length, source_id, url, state, updated_at) "
            "VALUES (%s, %s, %s, 'src', 'https://x', 'pending', now() - interval '1 hour')",
            (sha, key, len(body)),
        )


def test_recovery_resolves_pending_uploads(databases, store: RawStore) -> None:
    seed_source(databases.db)
    uploaded = b"uploaded before the crash"
    never = b"never uploaded"
    for body in (uploaded, never):
        sha = hashlib.sha256(body).hexdigest()
        _crash_after_claim(databases, sha, f"src/x/{sha}.bin", body)
    store.put(f"src/x/{hashlib.sha256(uploaded).hexdigest()}.bin", uploaded, None)
    with RawArchive(databases.db, store) as archive:
        report = archive.recover_pending(older_than_s=60)
        assert (report.ready, report.lost) == (1, 1)
        assert archive.load(hashlib.sha256(uploaded).hexdigest()) == uploaded
        # A lost object is not silently served...
        with pytest.raises(RawIntegrityError, match="raw object is lost"):
            archive.load(hashlib.sha256(never).hexdigest())
        # ...and fetching the same bytes again re-uploads and restores it.
        archive.save(
            source_id="src", body=never, url="https://x", content_type=None, http_status=200
        )
        assert archive.load(hashlib.sha256(never).hexdigest()) == never


def test_recovery_leaves_young_pending_rows_alone(databases, store: RawStore) -> None:
    """An upload in flight by another worker must not be judged mid-flight."""
    seed_source(databases.db)
    sha = hashlib.sha256(b"in flight").hexdigest()
    with databases.db.connect() as conn:
        conn.execute(
            "INSERT INTO crawl.raw_objects (sha256, object_key, byte_length, source_id, url, state) "
            "VALUES (%s, 'k', 9, 'src', 'https://x', 'pending')",
            (sha,),
        )
    with RawArchive(databases.db, store) as archive:
        assert archive.recover_pending(older_than_s=300) == RecoveryReport(ready=0, lost=0)
    assert raw_row(databases.db, sha)["state"] == "pending"


def test_unsupported_store_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unsupported scheme 'ftp'"):
        open_raw_store(Settings(), "ftp://somewhere/raw")


def test_s3_store_needs_an_endpoint() -> None:
    with pytest.raises(ConfigError, match="JOBHARBOR_S3_ENDPOINT must be set"):
        open_raw_store(Settings(), "s3://bucket/prefix")


def test_file_store_refuses_keys_that_escape_it(tmp_path: Path) -> None:
    store = open_raw_store(Settings(), (tmp_path / "raw").as_uri())
    with pytest.raises(ValueError, match="escapes the store"):
        store.put("../outside.txt", b"x", None)
