"""Rules every parser shares: what makes a posting accepted, partial or rejected,
and which kind of job a title describes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import fields, replace
from functools import lru_cache
from typing import Any

from parsers.plausible import implausible_salary
from parsers.types import Issue, ParseOutcome, Posting, Quality

# Ordered: the first rule that matches wins ("Research Intern" is an intern). Word
# boundaries everywhere: "International" is not an intern, "Cooper St" is not a co-op.
# Rules read titles only, never URLs or locations: "Grad" in a Workday path or in
# "Grad Zagreb" is Croatian for city, so a bare "grad" never counts.
JOB_TYPE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "co-op",
        re.compile(
            r"\bco-op\b|\bco op\b|\bcoop\b(?=[\s/()-]*(?:student|term|position|program|"
            r"placement|intern|work term))|\balternan(?:ce|t|te)\b|\bwork[- ]study\b",
            re.I,
        ),
    ),
    (
        "intern",
        re.compile(
            r"\b(?:interns?|internships?|stagiaire|praktikant(?:in)?|praktikum|pflichtpraktikum|"
            r"becari[oa]|pr[aá]cticas|pasant[ea]|tirocini[oa]|thực tập(?: sinh)?|"
            r"summer (?:analyst|associate))\b",
            re.I,
        ),
    ),
    (
        "new_grad",
        re.compile(
            r"\b(?:new[- ]grad(?:uate)?s?|recent grad(?:uate)?s?|(?:college|university|campus) "
            r"grad(?:uate)?s?|grad(?:uate)? (?:program(?:me)?|scheme|rotational program(?:me)?)|"
            r"graduate (?:engineer|developer|analyst|consultant|trainee|software|scientist|"
            r"associate)|campus (?:program(?:me)?|hire|recruit\w*)|early[- ]careers?|"
            r"entry[- ]level|fresher|mới tốt nghiệp|berufseinsteiger(?:in)?)\b|"
            r"\bgrad(?:uate)?s?\s*[-–(]?\s*20\d\d\b|\b20\d\d\s*grad(?:uate)?s?\b",
            re.I,
        ),
    ),
    (
        "student",
        re.compile(
            r"\b(?:werkstudent(?:in)?|working student|studentische (?:hilfskraft|aushilfe)|"
            r"(?:bachelor|master|phd|doctoral)(?:'s)? (?:thesis|student)|abschlussarbeit|"
            r"masterarbeit|bachelorarbeit|duales studium|dual student|sinh viên|"
            r"students?(?!\s*(?:success|services?|affairs|advis\w*|support|recruit\w*|"
            r"experience|engagement|life|housing|enrol\w*|counsel\w*|coordinator|records|"
            r"loans?|accounts?|information|data|programs?|teacher|nurse|health|financial)))\b",
            re.I,
        ),
    ),
    (
        "research",
        re.compile(
            r"\b(?:research (?:scientist|engineer|fellow|assistant|associate|intern|residen\w+)|"
            r"(?<!ux )(?<!user )(?<!market )(?<!design )researchers?|postdoc(?:toral)?|"
            r"phd resident|ai resident)\b",
            re.I,
        ),
    ),
)

# When the title says nothing, an explicit employment type still may (Personio's
# "working_student", SmartRecruiters' "intern"): the platform stated it.
EMPLOYMENT_JOB_TYPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("co-op", re.compile(r"\bco-?op\b", re.I)),
    ("intern", re.compile(r"\bintern(?:ship)?s?\b|praktikum|stagiaire", re.I)),
    ("student", re.compile(r"working[_ -]?student|werkstudent|\bstudent\b", re.I)),
    ("new_grad", re.compile(r"new[_ -]?grad(?:uate)?|graduate[_ ]program", re.I)),
)


# One search finds whether any rule could match: most titles match none, and then
# the ordered rules are not run one by one.
_ANY_JOB_TYPE = re.compile("|".join(f"(?:{p.pattern})" for _, p in JOB_TYPE_RULES), re.I)


# Memoized: the combined pattern costs 2-3 us a title (no first letter to skip to), a
# board's next listing repeats its titles, and the answer is one of six values.
@lru_cache(maxsize=8192)
def job_type_from_title(title: str | None) -> str | None:
    if not title or _ANY_JOB_TYPE.search(title) is None:
        return None
    for label, pattern in JOB_TYPE_RULES:
        if pattern.search(title):
            return label
    return None


def job_type_for(title: str | None, employment_type: str | None = None) -> str | None:
    """The title's job type, else what an explicit employment type says, else None."""
    found = job_type_from_title(title) if title else None
    if found or not employment_type:
        return found
    for label, pattern in EMPLOYMENT_JOB_TYPES:
        if pattern.search(employment_type):
            return label
    return None


def assess(posting: Posting, *, listing: bool = False) -> tuple[Quality, tuple[Issue, ...]]:
    """Required fields decide rejection; expected fields decide partial.

    Listing cards of HTML sites carry no description by nature, so `listing=True`
    does not count that against them.
    """
    missing_required = (
        []
        if posting.external_id and posting.title and posting.url
        else [name for name in ("external_id", "title", "url") if not getattr(posting, name)]
    )
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
    salary_doubt = None if posting.salary is None else implausible_salary(posting.salary)
    if salary_doubt:
        issues.append(Issue("implausible_salary", salary_doubt))
    return (Quality.PARTIAL if issues else Quality.ACCEPTED), tuple(issues)


def combine_quality(qualities: list[Quality]) -> Quality:
    if not qualities:
        return Quality.REJECTED
    if qualities.count(Quality.ACCEPTED) == len(qualities):  # one C loop, not a generator
        return Quality.ACCEPTED
    return Quality.PARTIAL


def outcome_from_postings(
    candidates: list[tuple[str, Posting]],
    *,
    issues: list[Issue] | None = None,
    total: int | None = None,
    next_page_url: str | None = None,
    listing: bool = False,
    dropped: int = 0,
    paging: Mapping[str, Any] | None = None,
    board_company: str | None = None,
) -> ParseOutcome:
    """Assess each (path, posting); drop rejected ones with their issues kept.

    A listing whose every item is unusable is rejected as a whole, so a garbled
    page can never pass for a valid (and much smaller) listing. `dropped` counts
    items the caller could not even turn into candidates; rejected candidates add
    to it, and the outcome reports the sum. `paging` and `board_company` go on the
    outcome either way (given here, the outcome is built once, not copied).
    """
    all_issues = list(issues or ())
    kept: list[Posting] = []
    qualities: list[Quality] = []
    for path, posting in candidates:
        quality, item_issues = assess(posting, listing=listing)
        if item_issues:
            all_issues.extend(Issue(i.code, i.message, i.path or path) for i in item_issues)
        if quality is not Quality.REJECTED:
            kept.append(posting)
            qualities.append(quality)
    dropped += len(candidates) - len(kept)
    if (candidates or all_issues) and not kept:
        return ParseOutcome(
            quality=Quality.REJECTED,
            issues=tuple(all_issues),
            total=total,
            paging=paging or {},
            dropped=dropped,
            board_company=board_company,
        )
    quality = combine_quality(qualities) if kept else Quality.ACCEPTED
    if all_issues and quality is Quality.ACCEPTED:
        quality = Quality.PARTIAL
    return ParseOutcome(
        quality=quality,
        postings=tuple(kept),
        issues=tuple(all_issues),
        total=total,
        next_page_url=next_page_url,
        paging=paging or {},
        dropped=dropped,
        board_company=board_company,
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
    if primary.more_offices == 0 and fallback.more_offices and not primary.offices:
        updates["more_offices"] = fallback.more_offices
    return replace(primary, **updates) if updates else primary


def dedupe_postings(candidates: list[tuple[str, Posting]]) -> list[tuple[str, Posting]]:
    """One posting per external id. Repeats (Workable lists a job once per country,
    feeds repeat positions) add their offices to the first and keep their own
    payload under `_repeats`, so nothing the source said is lost."""
    ids = [posting.external_id for _, posting in candidates]
    if all(ids) and len(set(ids)) == len(ids):  # nearly every page: nothing to merge
        return list(candidates)
    order: list[str] = []
    merged: dict[str, tuple[str, Posting, list[Posting]]] = {}
    for path, posting in candidates:
        key = posting.external_id
        if key and key in merged:
            merged[key][2].append(posting)
            continue
        order.append(key or path)
        merged[key or path] = (path, posting, [])
    out: list[tuple[str, Posting]] = []
    for key in order:
        path, first, repeats = merged[key]
        out.append((path, _absorb(first, repeats) if repeats else first))
    return out


def _absorb(first: Posting, repeats: list[Posting]) -> Posting:
    offices = list(first.offices)
    texts = [first.location_text] if first.location_text else []
    for other in repeats:
        offices.extend(o for o in other.offices if o not in offices)
        if other.location_text and other.location_text not in texts:
            texts.append(other.location_text)
    payload = dict(first.payload)
    payload["_repeats"] = [dict(p.payload) for p in repeats]
    return replace(
        first,
        offices=tuple(offices),
        location_text="; ".join(texts) or None,
        payload=payload,
    )
