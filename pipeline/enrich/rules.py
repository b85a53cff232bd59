"""The rules baseline: what the catalogue and the lexicons find without any model.

It answers in the model's own shape (`{evidence, value}` per field, skill lists), so
the same checker validates it, the sandbox's Gemini endpoint can answer truthfully
with it, and the demo shows enrichment offline. Deliberately cautious: a value is
proposed only when a phrase states it; anything else stays unknown.
"""

from __future__ import annotations

import re
from typing import Any

from pipeline.enrich.catalog import SkillCatalog
from pipeline.enrich.lexicon import PATTERNS, is_experience_phrase, read_years
from pipeline.enrich.text import flat

# Headings and phrases that switch a section between required and preferred skills.
_PREFERRED = re.compile(
    r"nice[- ]to[- ]have|preferred|bonus|a plus|is a plus|are a plus|an advantage|"
    r"is an asset|desirable|ideally|good to have|plus points?|great addition|ưu tiên|lợi thế|điểm cộng",
    re.IGNORECASE,
)
_REQUIRED_HEAD = re.compile(
    r"requirements?|qualifications?|what you('ll)? (need|bring)|must[- ]have|you have|"
    r"skills|tech stack|at a minimum|yêu cầu|kỹ năng|responsibilit|what you('ll)? do|mô tả công việc|the role",
    re.IGNORECASE,
)
_OTHER_HEAD = re.compile(
    r"benefits|perks|what we offer|about us|about the company|who we are|quyền lợi|phúc lợi|"
    r"chế độ|về chúng tôi|giới thiệu công ty|how to apply|equal opportunity|by applying|"
    r"recruitment fraud|privacy notice|staying safe|our commitment|diversity",
    re.IGNORECASE,
)
_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n")
_DEGREE_CUE = re.compile(r"degree|diploma|bằng|tốt nghiệp|education|graduated|học vấn", re.I)


def _segments(text: str) -> list[tuple[int, int, str]]:
    """(start, end, section) per sentence; a heading sets the section of what follows."""
    out: list[tuple[int, int, str]] = []
    section = "required"
    pos = 0
    for part in _SPLIT.split(text):
        start = text.find(part, pos)
        end = start + len(part)
        pos = end
        if not part.strip():
            continue
        heading = part.rstrip().endswith(":") or len(part) <= 60
        if heading and _OTHER_HEAD.search(part):
            section = "other"
        elif heading and _PREFERRED.search(part):
            section = "preferred"
        elif heading and _REQUIRED_HEAD.search(part):
            section = "required"
        own = "preferred" if _PREFERRED.search(part) else section
        out.append((start, end, own))
    return out


def _field(evidence: str | None = None, value: Any = None) -> dict[str, Any]:
    return {"evidence": evidence, "value": value}


def _first_lexicon(text: str, field: str, start: int = 0, end: int | None = None) -> dict:
    best: tuple[int, str, str] | None = None
    for value, pattern in PATTERNS[field].items():
        m = pattern.search(text, start, len(text) if end is None else end)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), value, m.group(1))
    return _field(best[2], best[1]) if best else _field()


def _experience(normalized: str, text: str) -> tuple[dict, dict]:
    for start, end, section in _segments(normalized):
        if section == "other":
            continue
        sentence = text[start:end]
        span = read_years(sentence)
        if span is None or not is_experience_phrase(sentence, span):
            continue
        excerpt = sentence[span.start : span.end]
        low = _field(excerpt, span.minimum) if span.minimum is not None else _field()
        high = _field(excerpt, span.maximum) if span.maximum is not None else _field()
        return low, high
    return _field(), _field()


def _education(normalized: str, text: str) -> dict:
    for start, end, section in _segments(normalized):
        sentence = text[start:end]
        if section != "other" and _DEGREE_CUE.search(sentence):
            found = _first_lexicon(sentence, "education")
            if found["value"]:
                return found
    return _field()


def baseline(normalized: str, catalog: SkillCatalog, posting_id: str | None = None) -> dict:
    """One posting's answer from rules alone, in the model's answer shape."""
    text = flat(normalized)
    title_end = normalized.find("\n")
    title_end = len(text) if title_end < 0 else title_end
    low, high = _experience(normalized, text)
    required: dict[str, dict] = {}
    preferred: dict[str, dict] = {}
    for start, end, section in _segments(normalized):
        if section == "other":
            continue
        target = preferred if section == "preferred" else required
        for match in catalog.find(text[start:end]):
            item = _field(text[start + match.start : start + match.end], match.key)
            target.setdefault(match.key, item)
    for key in required:
        preferred.pop(key, None)
    answer = {
        "posting_id": posting_id,
        "experience_min": low,
        "experience_max": high,
        "seniority": _first_lexicon(text, "seniority", 0, title_end),
        "work_mode": _first_lexicon(text, "work_mode"),
        "employment_type": _first_lexicon(text, "employment_type"),
        "education": _education(normalized, text),
        "skills_required": list(required.values()),
        "skills_preferred": list(preferred.values()),
    }
    return answer
