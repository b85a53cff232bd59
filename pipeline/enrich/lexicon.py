"""The per-value lexicons an enum value's excerpt must contain (English and Vietnamese),
and the experience phrases ("5+ years", "3-5 năm kinh nghiệm") bounds are read from.

A lexicon word is matched as a whole word, case-insensitively, in the normalised
excerpt. The rules baseline reads the same lexicons, so what it proposes passes the
checker by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SENIORITY = (
    "intern",
    "junior",
    "mid",
    "senior",
    "lead",
    "principal",
    "manager",
    "director",
    "executive",
)
WORK_MODE = ("remote", "hybrid", "onsite")
EMPLOYMENT_TYPE = ("full_time", "part_time", "contract", "temporary", "internship", "freelance")
EDUCATION = ("none", "high_school", "associate", "bachelor", "master", "phd")
ENUMS: dict[str, tuple[str, ...]] = {
    "seniority": SENIORITY,
    "work_mode": WORK_MODE,
    "employment_type": EMPLOYMENT_TYPE,
    "education": EDUCATION,
}

LEXICON: dict[str, dict[str, tuple[str, ...]]] = {
    "seniority": {
        "intern": ("intern", "interns", "internship", "trainee", "thực tập sinh", "thực tập"),
        "junior": (
            "junior",
            "jr",
            "jr.",
            "entry-level",
            "entry level",
            "new grad",
            "new college grad",
            "college grad",
            "graduate",
            "fresher",
            "mới tốt nghiệp",
        ),
        "mid": ("mid-level", "mid level", "midlevel", "intermediate", "middle"),
        "senior": ("senior", "sr", "sr.", "cấp cao"),
        "lead": ("lead", "tech lead", "team lead", "trưởng nhóm", "leader"),
        "principal": ("principal", "staff engineer", "distinguished"),
        "manager": ("manager", "quản lý", "trưởng phòng"),
        "director": ("director", "head of", "giám đốc"),
        "executive": (
            "vp",
            "vice president",
            "chief",
            "cto",
            "ceo",
            "cfo",
            "coo",
            "c-level",
            "tổng giám đốc",
        ),
    },
    "work_mode": {
        "remote": (
            "remote",
            "fully remote",
            "remote-first",
            "work from home",
            "work from anywhere",
            "wfh",
            "từ xa",
            "làm việc từ xa",
            "tại nhà",
        ),
        "hybrid": ("hybrid", "kết hợp", "linh hoạt giữa văn phòng và tại nhà"),
        "onsite": (
            "onsite",
            "on-site",
            "on site",
            "in office",
            "in-office",
            "in the office",
            "office-based",
            "tại văn phòng",
            "làm việc tại văn phòng",
        ),
    },
    "employment_type": {
        "full_time": ("full-time", "full time", "fulltime", "permanent", "toàn thời gian"),
        "part_time": ("part-time", "part time", "parttime", "bán thời gian"),
        "contract": ("contract", "contractor", "fixed-term", "hợp đồng"),
        "temporary": ("temporary", "temp", "seasonal", "thời vụ"),
        "internship": ("internship", "intern", "thực tập", "thực tập sinh"),
        "freelance": ("freelance", "freelancer", "tự do", "cộng tác viên"),
    },
    "education": {
        "none": (
            "no degree",
            "degree not required",
            "no formal education",
            "không yêu cầu bằng cấp",
        ),
        "high_school": (
            "high school",
            "secondary school",
            "trung học phổ thông",
            "thpt",
            "tốt nghiệp thpt",
        ),
        "associate": (
            "associate degree",
            "associate's degree",
            "associate's",
            "cao đẳng",
            "college diploma",
        ),
        "bachelor": (
            "bachelor",
            "bachelor's",
            "bachelors",
            "bs",
            "b.s.",
            "bsc",
            "b.sc.",
            "b.a.",
            "undergraduate degree",
            "university degree",
            "đại học",
            "cử nhân",
        ),
        "master": ("master", "master's", "masters", "ms", "m.s.", "msc", "m.sc.", "mba", "thạc sĩ"),
        "phd": ("phd", "ph.d.", "ph.d", "doctorate", "doctoral", "tiến sĩ"),
    },
}


def _word_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    body = "|".join(re.escape(w).replace(r"\ ", r"\s") for w in ordered)
    return re.compile(r"(?<![\w.])(" + body + r")(?![\w])", re.IGNORECASE)


PATTERNS: dict[str, dict[str, re.Pattern[str]]] = {
    field: {value: _word_pattern(words) for value, words in values.items()}
    for field, values in LEXICON.items()
}


def supports(field: str, value: str, excerpt: str) -> bool:
    """Does the excerpt hold a word of the value's lexicon?"""
    pattern = PATTERNS.get(field, {}).get(value)
    return pattern is not None and pattern.search(excerpt) is not None


# ---------------------------------------------------------------- experience

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "fifteen": 15,
    "một": 1,
    "hai": 2,
    "ba": 3,
    "bốn": 4,
    "năm": 5,
    "sáu": 6,
    "bảy": 7,
    "tám": 8,
    "chín": 9,
    "mười": 10,
}
_N = r"(\d{1,2}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
_YEARS = r"(?:years?|yrs?|năm)"
_RANGE = re.compile(_N + r"\s*(?:-|to|~|đến|tới)\s*" + _N + r"\+?\s*" + _YEARS, re.I)
_PLUS = re.compile(
    r"(?:(?:at\s+least|minimum(?:\s+of)?|min\.?|over|more\s+than|tối\s+thiểu|ít\s+nhất|trên|từ)\s+)?"
    + _N
    + r"\s*(\+|\s*plus)?\s*"
    + _YEARS,
    re.I,
)
_UP_TO = re.compile(
    r"(?:up\s+to|at\s+most|maximum(?:\s+of)?|tối\s+đa|dưới)\s+" + _N + r"\s*" + _YEARS, re.I
)
_NO_EXPERIENCE = re.compile(
    r"\b(no\s+(prior\s+)?experience\s+(is\s+)?(required|needed|necessary)|không\s+yêu\s+cầu\s+kinh\s+nghiệm|chưa\s+có\s+kinh\s+nghiệm)",
    re.I,
)
_EXPERIENCE_CUE = re.compile(r"experience|kinh\s+nghiệm|background|track\s+record", re.I)


@dataclass(frozen=True)
class YearsSpan:
    minimum: int | None
    maximum: int | None
    start: int
    end: int


def _number(token: str) -> int:
    return int(token) if token.isdigit() else _NUMBER_WORDS[token.lower()]


def read_years(excerpt: str) -> YearsSpan | None:
    """The first experience bound phrase in the excerpt, as (min, max)."""
    found: list[YearsSpan] = []
    for m in _RANGE.finditer(excerpt):
        found.append(YearsSpan(_number(m.group(1)), _number(m.group(2)), m.start(), m.end()))
    for m in _UP_TO.finditer(excerpt):
        found.append(YearsSpan(None, _number(m.group(1)), m.start(), m.end()))
    for m in _PLUS.finditer(excerpt):
        if any(f.start <= m.start() < f.end or m.start() <= f.start < m.end() for f in found):
            continue  # part of a range or an "up to"
        found.append(YearsSpan(_number(m.group(1)), None, m.start(), m.end()))
    for m in _NO_EXPERIENCE.finditer(excerpt):
        found.append(YearsSpan(0, None, m.start(), m.end()))
    return min(found, key=lambda f: f.start) if found else None


def is_experience_phrase(text: str, span: YearsSpan) -> bool:
    """A years phrase counts as experience only near an experience word (not "5 years old",
    not "a 2-year contract")."""
    window = text[max(0, span.start - 60) : span.end + 60]
    return _EXPERIENCE_CUE.search(window) is not None
