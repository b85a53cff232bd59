"""What `jobharbor enrich show` prints: the stored result, each value with its excerpt."""

from __future__ import annotations

from typing import Any

from pipeline.db.connect import Database


def load(db: Database, posting_id: int) -> dict[str, Any] | None:
    with db.connect() as conn:
        result = conn.execute(
            "SELECT * FROM enrich.results WHERE posting_id = %s AND is_current", (posting_id,)
        ).fetchone()
        queue = conn.execute(
            "SELECT state, attempts, reasks, next_try_at, last_error_class, last_error "
            "FROM enrich.queue WHERE posting_id = %s",
            (posting_id,),
        ).fetchone()
    if result is None and queue is None:
        return None
    return {"posting_id": posting_id, "result": result, "queue": queue}


def _value(name: str, item: dict[str, Any]) -> str:
    return (
        f'  {name:<16} {item["value"]!s:<12} [{item["start"]}, {item["end"]})  "{item["evidence"]}"'
    )


def render(found: dict[str, Any]) -> str:
    lines = [f"posting {found['posting_id']}"]
    queue = found["queue"]
    if queue:
        error = (
            f", last error {queue['last_error_class']}: {queue['last_error']}"
            if queue["last_error_class"]
            else ""
        )
        lines.append(
            f"queue: {queue['state']}, {queue['attempts']} attempts, {queue['reasks']} re-asks{error}"
        )
    result = found["result"]
    if result is None:
        lines.append("not extracted yet")
        return "\n".join(lines)
    lines.append(
        f"extracted by {result['provider']} {result['model']} at {result['created_at']} (text {result['text_hash'][:12]})"
    )
    for name in (
        "experience_min",
        "experience_max",
        "seniority",
        "work_mode",
        "employment_type",
        "education",
    ):
        item = result["fields"].get(name)
        lines.append(_value(name, item) if item else f"  {name:<16} unknown")
    for name in ("skills_required", "skills_preferred"):
        lines.append(f"{name}:")
        lines += [_value(s["key"], s) for s in result[name]] or ["  none found"]
    if result["unmapped"]:
        lines.append("unmapped labels (not in the catalogue):")
        lines += [_value(u["value"], u) for u in result["unmapped"]]
    if result["rejected"]:
        lines.append("rejected:")
        lines += [
            f'  {r["field"]:<16} {r["value"]!s:<12} {r["reason"]}  "{r["evidence"]}"'
            for r in result["rejected"]
        ]
    return "\n".join(lines)
