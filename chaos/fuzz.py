"""Fuzzing (docs/reliability.md §5): hypothesis drives bytes in any form through every
registered parser, text through the location normalizer, and responses through the
evidence checker, for a time budget.

Inputs: arbitrary bytes; JSON documents of any shape; and mutated real captures
from ../shared/fixtures/real (truncated, bytes flipped, spliced, duplicated; the
captures are read in place and skipped, visibly, when absent). Every parser meets
every input as a listing and as a detail page.

What counts: an input is one call; a crash is an exception out of the component
(hypothesis then shrinks it to a minimal example, which is reported and becomes a
regression test). The checker has one more property: an answer that is not a
response (no status), a 429 or a 5xx never closes a posting.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers import REGISTRY, DocumentKind, RawDocument
from pipeline.lifecycle.check_rules import CheckedResponse, judge
from pipeline.normalize.locations import locate
from pipeline.progress import Progress
from pipeline.settings import REPO_ROOT

REAL = Path(os.environ.get("JOBHARBOR_REAL_FIXTURES", REPO_ROOT.parent / "shared/fixtures/real"))
MAX_CAPTURE_BYTES = 400_000  # mutate the first 400 KB of a capture (keeps one call fast)


def real_captures() -> list[bytes]:
    """Every real capture's bytes (gunzipped when gzip), or [] when absent."""
    if not REAL.is_dir():
        return []
    found = []
    for path in sorted(REAL.rglob("*")):
        if not path.is_file() or path.suffix in (".md",) or path.name.startswith("."):
            continue
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            with contextlib.suppress(OSError, EOFError):
                data = gzip.decompress(data)
        found.append(data[:MAX_CAPTURE_BYTES])
    return found


def _json_values() -> st.SearchStrategy[Any]:
    scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40)
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=6)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "jobs",
                        "id",
                        "title",
                        "url",
                        "location",
                        "content",
                        "postings",
                        "data",
                        "absolute_url",
                        "jobPostings",
                        "results",
                        "offset",
                        "total",
                        "name",
                        "text",
                    ]
                )
                | st.text(max_size=10),
                inner,
                max_size=6,
            )
        ),
        max_leaves=30,
    )


@st.composite
def mutated(draw: st.DrawFn, captures: list[bytes]) -> bytes:
    data = bytearray(draw(st.sampled_from(captures)))
    for _ in range(draw(st.integers(0, 4))):
        if not data:
            break
        op = draw(st.sampled_from(["truncate", "flip", "splice", "duplicate", "delete"]))
        at = draw(st.integers(0, len(data) - 1))
        if op == "truncate":
            del data[at:]
        elif op == "flip":
            data[at] = draw(st.integers(0, 255))
        elif op == "splice":
            data[at:at] = draw(st.binary(max_size=64))
        elif op == "duplicate":
            data[at:at] = data[at : at + draw(st.integers(1, 2048))]
        else:
            del data[at : at + draw(st.integers(1, 2048))]
    return bytes(data)


def bodies(captures: list[bytes]) -> st.SearchStrategy[bytes]:
    parts = [
        st.binary(max_size=2048),
        _json_values().map(lambda v: json.dumps(v).encode()),
    ]
    if captures:
        parts.append(mutated(captures))
    return st.one_of(*parts)


@dataclass
class FuzzReport:
    inputs: int = 0
    crashes: list[dict[str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {"fuzz_inputs": self.inputs, "fuzz_crashes": len(self.crashes)}


def _run(
    report: FuzzReport,
    name: str,
    test: Callable[[], None],
    budget_s: float,
    rounds: int | None = None,
) -> None:
    """Run one hypothesis test repeatedly (fresh random seeds) until its budget is spent,
    `rounds` runs are done (the test suite's short pass), or it finds a crash (then
    reported with hypothesis's minimal example)."""
    report.targets.append(name)
    deadline = time.monotonic() + budget_s
    done = 0
    progress = Progress(f"fuzz {name}: runs", rounds)
    while time.monotonic() < deadline and (rounds is None or done < rounds):
        done += 1
        progress.advance()
        try:
            test()
        except Exception as exc:
            report.crashes.append({"target": name, "error": f"{type(exc).__name__}: {exc}"[:2000]})
            return


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


def fuzz_parsers(
    report: FuzzReport, budget_s: float, examples: int = 60, rounds: int | None = None
) -> None:
    captures = real_captures()
    if not captures:
        report.skipped.append(f"real captures absent ({REAL}): arbitrary and JSON bytes only")
    parsers = list(REGISTRY)
    share = budget_s / max(1, len(parsers))
    for parser in parsers:
        _run(
            report,
            f"parser {parser.ref}",
            _parser_test(report, parser, captures, examples),
            share,
            rounds,
        )


def _parser_test(
    report: FuzzReport, parser: Any, captures: list[bytes], examples: int
) -> Callable[[], None]:
    @_settings(examples)
    @given(
        body=bodies(captures),
        kind=st.sampled_from(list(DocumentKind)),
        content_type=st.sampled_from(["application/json", "text/html", None]),
    )
    def test(body: bytes, kind: DocumentKind, content_type: str | None) -> None:
        report.inputs += 1
        doc = RawDocument(
            body=body, url="https://x.example/jobs/1", kind=kind, content_type=content_type
        )
        parser.parse(doc)

    return test


def fuzz_locations(
    report: FuzzReport, budget_s: float, examples: int = 200, rounds: int | None = None
) -> None:
    words = st.sampled_from(
        [
            "Berlin",
            "Germany",
            "Remote",
            "Hà Nội",
            "New York, NY",
            "US",
            "EMEA",
            "/",
            ";",
            "(",
            ")",
            "&",
            "or",
            "Hybrid",
            "São Paulo",
            "München",
            "2 Locations",
            "+3 more",
            ",",
        ]
    )
    texts = st.one_of(st.text(max_size=300), st.lists(words, max_size=30).map(" ".join))

    @_settings(examples)
    @given(
        values=st.lists(texts, max_size=4),
        remote=st.sampled_from([None, "yes", "hybrid", "unknown"]),
    )
    def test(values: list[str], remote: str | None) -> None:
        report.inputs += 1
        locate(values, remote_hint=remote).to_dict()

    _run(report, "location normalizer", test, budget_s, rounds)


def fuzz_checker(
    report: FuzzReport, budget_s: float, examples: int = 100, rounds: int | None = None
) -> None:
    captures = real_captures()
    parser = REGISTRY.get("jsonld")
    urls = st.sampled_from(
        [
            "https://x.example/jobs/1",
            "https://x.example/jobs",
            "https://x.example/",
            "https://other.example/",
            "https://x.example/jobs?error=true",
            "",
            "::",
            "http://[::1",
        ]
    ) | st.text(max_size=60)

    @_settings(examples)
    @given(
        body=bodies(captures),
        status=st.one_of(st.none(), st.integers(100, 599)),
        requested=urls,
        final=urls,
        redirects=st.lists(urls, max_size=3),
        external_id=st.text(max_size=20),
        title=st.one_of(st.none(), st.text(max_size=60)),
        parse=st.booleans(),
    )
    def test(
        body: bytes,
        status: int | None,
        requested: str,
        final: str,
        redirects: list[str],
        external_id: str,
        title: str | None,
        parse: bool,
    ) -> None:
        report.inputs += 1
        response = CheckedResponse(requested, final, status, body, tuple(redirects))
        parsed = None
        if parse:
            parsed = parser.parse(
                RawDocument(
                    body=body, url=final or requested, kind=DocumentKind.DETAIL, status=status
                )
            )
        verdict = judge(response, external_id=external_id, title=title, parsed=parsed)
        if status is None or status == 429 or status >= 500:
            assert not verdict.conclusive, (status, verdict)

    _run(report, "evidence checker", test, budget_s, rounds)


def run_fuzz(budget_s: float) -> FuzzReport:
    """Share the budget: parsers 60 %, the checker 25 %, the normalizer 15 %."""
    report = FuzzReport()
    fuzz_parsers(report, budget_s * 0.60)
    fuzz_checker(report, budget_s * 0.25)
    fuzz_locations(report, budget_s * 0.15)
    return report
