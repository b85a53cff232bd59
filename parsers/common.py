"""Rules every parser shares: what makes a posting accepted, partial or rejected,
and which kind of job a title describes."""

from __future__ import annotations

import re
from dataclasses import fields, replace

from parsers.types import Issue, ParseOutcome, Posting, Quality

# Ordered: the first rule that matches wins. Word boundaries everywhere:
# "International" is not an intern and "Cooper St" is not a co-op.
_JOB_TYPE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("co-op", re.compile(r"\bco-?op\b", re.I)),
    (
        "intern",
        re.compile(r"\b(?:intern|interns|internship|internships|stagiaire|praktikum)\b", re.I),
    ),
    (
        "new_grad",
        re.compile(
            r"\b(?:new[- ]grad(?:uate)?|graduate program(?:me)?|university grad(?:uate)?|early career)\b",
            re.I,
        ),
    ),
    ("student", re.compile(r"\b(?:student|werkstudent|working student)\b", re.I)),
    (
        "research",
        re.compile(
            r"\b(?:research (?:scientist|engineer|fellow|assistant)|phd (?:resident|fellow))\b",
            re.I,
        ),
    ),
)


def job_type_from_title(title: str | None) -> str | None:
    if not title:
        return None
    for label, pattern in _JOB_TYPE_RULES:
        if pattern.search(title):
            return label
    return None


def assess(posting: Posting, *, listing: bool = False) -> tuple[Quality, tuple[Issue, ...]]:
    """Required fields decide rejection; expected fields decide partial.

    Listing cards of HTML sites carry no description by nature, so `listing=True`
    does not count that against them.
    """
    missing_required = [
        name for name in ("external_id", "title", "url") if not getattr(posting, name)
    ]
    if missing_required:
        return Quality.REJECTED, tuple(
            Issue(f"missing_{name}", f"the posting has no {name.replace('_', ' ')}")
            for name in missing_required
        )
    issues: list[Issue] = []
    if not posting.description_text and not listing:
        issues.append(Issue("missing_description", "the posting has no description text"))
    if not posting.location_text and not posting.offices:
        issues.append(Issue("missing_location", "the posting states no location"))
    return (Quality.PARTIAL if issues else Quality.ACCEPTED), tuple(issues)


def combine_quality(qualities: list[Quality]) -> Quality:
    if not qualities:
        return Quality.REJECTED
    if all(q is Quality.ACCEPTED for q in qualities):
        return Quality.ACCEPTED
    return Quality.PARTIAL


def outcome_from_postings(
    candidates: list[tuple[str, Posting]],
    *,
    issues: list[Issue] | None = None,
    total: int | None = None,
    next_page_url: str | None = None,
    listing: bool = False,
) -> ParseOutcome:
    """Assess each (path, posting); drop rejected ones with their issues kept.

    A listing whose every item is unusable is rejected as a whole, so a garbled
    page can never pass for a valid (and much smaller) listing.
    """
    all_issues = list(issues or ())
    kept: list[Posting] = []
    qualities: list[Quality] = []
    for path, posting in candidates:
        quality, item_issues = assess(posting, listing=listing)
        all_issues.extend(Issue(i.code, i.message, i.path or path) for i in item_issues)
        if quality is not Quality.REJECTED:
            kept.append(posting)
            qualities.append(quality)
    if (candidates or all_issues) and not kept:
        return ParseOutcome(quality=Quality.REJECTED, issues=tuple(all_issues), total=total)
    quality = combine_quality(qualities) if kept else Quality.ACCEPTED
    if all_issues and quality is Quality.ACCEPTED:
        quality = Quality.PARTIAL
    return ParseOutcome(
        quality=quality,
        postings=tuple(kept),
        issues=tuple(all_issues),
        total=total,
        next_page_url=next_page_url,
    )


def merge_postings(primary: Posting, fallback: Posting) -> Posting:
    """`primary` wins where it has a value; `fallback` fills its gaps.

    Used to combine a detail page (primary) with its listing row, and JSON-LD
    with a site's own selectors. Identity fields are never taken from fallback.
    """
    updates = {}
    for f in fields(Posting):
        if f.name in ("external_id", "payload", "posted_precision", "remote"):
            continue
        mine, theirs = getattr(primary, f.name), getattr(fallback, f.name)
        if (mine is None or mine == "" or mine == ()) and theirs not in (None, "", ()):
            updates[f.name] = theirs
    if primary.posted_precision == "unknown" and fallback.posted_precision != "unknown":
        updates["posted_precision"] = fallback.posted_precision
        updates["posted_at"] = fallback.posted_at
    if primary.remote == "unknown" and fallback.remote != "unknown":
        updates["remote"] = fallback.remote
    if "title" in updates and "job_type" not in updates and not primary.job_type:
        updates["job_type"] = job_type_from_title(updates["title"])
    return replace(primary, **updates) if updates else primary
