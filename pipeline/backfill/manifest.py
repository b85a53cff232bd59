"""The manifest a backfill preview writes and its apply consumes, and the journal that
makes an apply resumable.

A manifest names every selected item with the hash that says "unchanged since the
preview" (a raw SHA-256 for re-parse, a state hash for checks, a snapshot hash for a
sync). Apply compares those hashes with the database before writing anything.
The journal (`<manifest>.done`) lists items an apply finished, one per line, so a
killed apply rerun with the same manifest skips them.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline.config import BACKFILL_MAX_LIMIT, BACKFILL_MAX_REQUESTS
from pipeline.errors import FatalError

# Hard caps, shared by the DAG Param schemas and the CLI (defined in pipeline.config,
# the one module DAG files may import at parse time).
MAX_LIMIT = BACKFILL_MAX_LIMIT
MAX_REQUESTS = BACKFILL_MAX_REQUESTS
SAMPLE_SIZE = 20


class BackfillRefused(FatalError):
    """Apply would not do what was previewed: preview again."""


@dataclass(frozen=True)
class Item:
    id: int
    hash: str | None


@dataclass(frozen=True)
class Manifest:
    kind: str  # reparse, check, sync, enrich
    params: Mapping[str, Any]
    items: tuple[Item, ...]
    counts: Mapping[str, Any] = field(default_factory=dict)
    bytes: int = 0
    estimated_requests: int = 0
    estimated_tokens: int = 0
    sample: tuple[Mapping[str, Any], ...] = ()
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    notes: tuple[str, ...] = ()
    why_empty: str | None = None  # what the preview found instead, when it selected nothing

    @property
    def fingerprint(self) -> str:
        """Identifies the selection (kind, params, ids and hashes), not when it was made."""
        blob = json.dumps(
            [self.kind, dict(self.params), [[i.id, i.hash] for i in self.items]],
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["items"] = [[i.id, i.hash] for i in self.items]
        data["fingerprint"] = self.fingerprint
        return data

    def summary(self) -> str:
        counts = ", ".join(f"{k}={v}" for k, v in self.counts.items())
        return (
            f"{self.kind} backfill: {len(self.items)} items, {self.bytes} bytes, "
            f"~{self.estimated_requests} requests, ~{self.estimated_tokens} tokens"
            + (f"; {counts}" if counts else "")
        )

    def nothing_to_apply(self) -> str | None:
        """Why an apply of this manifest would do nothing (None: it has items to apply)."""
        if self.items:
            return None
        return self.why_empty or f"the {self.kind} preview selected no items"


def write_manifest(manifest: Manifest, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    path = directory / f"{manifest.kind}-{stamp}-{manifest.fingerprint[:8]}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest.to_dict(), indent=1, default=str, ensure_ascii=False))
    os.replace(tmp, path)
    return path


def load_manifest(path: Path, kind: str | None = None) -> Manifest:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise BackfillRefused(f"no manifest at {path}: run the preview first") from None
    manifest = Manifest(
        kind=data["kind"],
        params=data["params"],
        items=tuple(Item(int(i), h) for i, h in data["items"]),
        counts=data.get("counts", {}),
        bytes=data.get("bytes", 0),
        estimated_requests=data.get("estimated_requests", 0),
        estimated_tokens=data.get("estimated_tokens", 0),
        sample=tuple(data.get("sample", ())),
        created_at=data.get("created_at", ""),
        notes=tuple(data.get("notes", ())),
        why_empty=data.get("why_empty"),
    )
    if manifest.fingerprint != data.get("fingerprint"):
        raise BackfillRefused(f"manifest {path} was edited after the preview wrote it")
    if kind and manifest.kind != kind:
        raise BackfillRefused(f"manifest {path} is a {manifest.kind} backfill, not {kind}")
    return manifest


def refuse_changes(manifest: Manifest, current: Mapping[int, str | None], done: set[int]) -> None:
    """Raise when an item not yet done is gone or its hash differs from the preview."""
    gone = [i.id for i in manifest.items if i.id not in done and i.id not in current]
    changed = [
        i.id
        for i in manifest.items
        if i.id not in done and i.id in current and current[i.id] != i.hash
    ]
    if gone or changed:
        raise BackfillRefused(
            f"the selection changed since the preview ({len(changed)} changed, {len(gone)} gone; "
            f"e.g. {(changed + gone)[:5]}): nothing applied; preview again",
            changed=len(changed),
            gone=len(gone),
        )


class Journal:
    """Items an apply finished, appended and flushed per batch."""

    def __init__(self, manifest_path: Path) -> None:
        self.path = Path(str(manifest_path) + ".done")

    def done(self) -> set[int]:
        if not self.path.exists():
            return set()
        return {int(line) for line in self.path.read_text().split() if line.strip().isdigit()}

    def record(self, ids: Iterable[int]) -> None:
        lines = "".join(f"{i}\n" for i in ids)
        if not lines:
            return
        with self.path.open("a") as handle:
            handle.write(lines)
            handle.flush()
            os.fsync(handle.fileno())
