"""Bad input, bounded (docs/reliability.md §4), short form: hostile bodies on the wire and
hostile documents for every parser meet a recorded rejection, never a crash or a hang.
`python -m chaos` runs the full sizes (a 1 GB gzip bomb, 50 MB JSON-LD, 100,000
postings, 10 MB HTML)."""

from __future__ import annotations

import pytest

from chaos.bad_input import BadInputReport, http_inputs, run_parsers
from parsers import REGISTRY, DocumentKind, Quality, RawDocument
from parsers.hygiene import screen
from parsers.limits import MAX_JSONLD_BLOCK_CHARS
from parsers.types import ParseOutcome, Posting

CAP = 1024 * 1024


@pytest.fixture(scope="module")
def wire() -> BadInputReport:
    report = BadInputReport()
    http_inputs(report, cap=CAP, scale=0.02)
    return report


def _outcome(report: BadInputReport, path: str) -> str:
    (tried,) = [t for t in report.tried if t.name == path]
    return tried.outcome


@pytest.mark.sandbox  # the hostile server of chaos.bad_input, over sockets
def test_no_hostile_body_on_the_wire_crashes_or_hangs_the_fetcher(wire) -> None:
    assert len(wire.tried) == 10
    assert wire.crashes == []
    assert all(t.outcome.startswith("rejected") for t in wire.tried), wire.tried


@pytest.mark.sandbox  # the hostile server of chaos.bad_input, over sockets
def test_a_body_over_the_cap_stops_being_read_at_the_cap(wire) -> None:
    assert "exceeds the size limit (1048576 bytes)" in _outcome(wire, "/over-cap")
    assert "exceeds the size limit" in _outcome(wire, "/over-cap-declared")


@pytest.mark.sandbox  # the hostile server of chaos.bad_input, over sockets
def test_a_gzip_bomb_is_refused_at_the_cap_and_stacked_or_unasked_codings_unread(wire) -> None:
    assert "exceeds the size limit" in _outcome(wire, "/gzip-bomb")
    assert "unsupported content encoding 'gzip, gzip, gzip'" in _outcome(wire, "/gzip-x3")
    assert "unsupported content encoding 'br'" in _outcome(wire, "/brotli")
    assert "unsupported content encoding 'zstd'" in _outcome(wire, "/zstd")


@pytest.mark.sandbox  # the hostile server of chaos.bad_input, over sockets
def test_corrupt_truncated_and_dripped_bodies_are_failed_requests(wire) -> None:
    assert "undecodable gzip body" in _outcome(wire, "/corrupt-gzip")
    assert "truncated gzip body" in _outcome(wire, "/truncated-gzip")
    assert "RemoteProtocolError" in _outcome(wire, "/truncated-length")
    assert "body not complete within 5s" in _outcome(wire, "/drip")


def test_every_parser_meets_every_hostile_document_without_a_crash_or_a_hang() -> None:
    report = BadInputReport()
    run_parsers(report, scale=0.05)
    parsers_tried = {t.name.split(" ")[0] for t in report.tried if t.layer == "parser"}
    assert parsers_tried == {p.ref for p in REGISTRY}
    assert report.crashes == []
    assert len(report.tried) >= 13 * len(list(REGISTRY)) * 2


def test_a_json_ld_block_over_the_limit_is_skipped_with_an_issue() -> None:
    block = "x" * (MAX_JSONLD_BLOCK_CHARS + 1)
    body = (
        '<html><head><script type="application/ld+json">{"@type":"JobPosting","title":"'
        f'{block}"}}</script></head></html>'
    ).encode()
    parser = REGISTRY.get("jsonld")
    outcome = parser.parse(
        RawDocument(body=body, url="https://x.example/j", kind=DocumentKind.DETAIL)
    )
    assert outcome.quality is Quality.REJECTED
    assert "jsonld_too_large" in [i.code for i in outcome.issues]


def test_a_posting_with_nul_is_dropped_with_an_issue_and_the_rest_kept() -> None:
    good = Posting(external_id="1", url="https://x.example/1", title="Engineer")
    nul = Posting(external_id="2", url="https://x.example/2", title="Eng\x00ineer")
    surrogate = Posting(
        external_id="3", url="https://x.example/3", title="ok", payload={"k": ["\ud800"]}
    )
    outcome = screen(ParseOutcome(quality=Quality.ACCEPTED, postings=(good, nul, surrogate)))
    assert [p.external_id for p in outcome.postings] == ["1"]
    assert [i.path for i in outcome.issues] == ["title", "payload.k[0]"]
    assert outcome.dropped == 2
    only_bad = screen(ParseOutcome(quality=Quality.ACCEPTED, postings=(nul,)))
    assert only_bad.quality is Quality.REJECTED


def test_every_registered_parser_is_screened() -> None:
    assert all(getattr(p.parse, "screened", False) for p in REGISTRY)
