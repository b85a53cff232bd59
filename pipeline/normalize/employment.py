"""One vocabulary for employment type: what a platform states, as a set of canonical values.

Platforms spell the same few kinds of employment in dozens of ways ("Full-time",
"FULL_TIME", "FullTime", "full", "fulltime_permanent", "Salaried, full-time",
"Vollzeit", "Toàn thời gian"). `employment_types` reads a stated value as words (case,
accents, camelCase, underscores and punctuation folded away), finds the phrases it
knows anywhere in it (so a list, "Full-time, Part-time", gives both), and returns the
canonical values in VOCABULARY order. A stated value in which no phrase is known is
`other`: published, counted as unmapped by the quality report, never a facet value of
its own. Nothing stated is the empty set ("not stated").

`coherent` then settles one posting: its stated types, the title's job type, the
enrichment's seniority and extracted employment type never contradict each other. The
precedence is written in docs/data-model.md ("Employment type") and on the function.

Pure: no I/O; the publish step (serving_sync.reconcile) calls it for every posting, so
the core keeps the value as parsed and a better mapping needs no re-parse.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

VOCABULARY = (
    "full_time", "part_time", "contract", "temporary", "internship", "volunteer", "per_diem",
    "other",
)  # fmt: skip
FULL_TIME, PART_TIME, CONTRACT, TEMPORARY, INTERNSHIP, VOLUNTEER, PER_DIEM, OTHER = VOCABULARY
HOURS = frozenset({FULL_TIME, PART_TIME})

# Words that say an open-ended contract, not the hours. Alone they read as full-time: a
# posting that states a permanent position and no hours is, by the platforms'
# convention (Personio's `permanent`, Lever's "Permanent", a French CDI), a full-time
# one; with hours stated ("permanent, part-time") the hours decide.
_PERMANENT = "permanent"
# Words that say nothing of the kind of employment ("Salaried, full-time").
_NEUTRAL = "neutral"

# Folded phrases (words separated by one space) -> a canonical value or a marker. The
# longest phrase at a position wins ("full time" before "full", "co op" before nothing).
_PHRASES: dict[str, str] = {
    # full-time
    "full time": FULL_TIME, "fulltime": FULL_TIME, "full": FULL_TIME, "ft": FULL_TIME,
    "full time employee": FULL_TIME, "vollzeit": FULL_TIME, "toan thoi gian": FULL_TIME,
    "temps plein": FULL_TIME, "temps complet": FULL_TIME, "plein temps": FULL_TIME,
    "tiempo completo": FULL_TIME, "jornada completa": FULL_TIME, "tempo pieno": FULL_TIME,
    "voltijd": FULL_TIME,
    # part-time
    "part time": PART_TIME, "parttime": PART_TIME, "part": PART_TIME, "pt": PART_TIME,
    "teilzeit": PART_TIME, "ban thoi gian": PART_TIME, "temps partiel": PART_TIME,
    "mi temps": PART_TIME, "tiempo parcial": PART_TIME, "media jornada": PART_TIME,
    "tempo parziale": PART_TIME, "deeltijd": PART_TIME, "minijob": PART_TIME,
    # A working student (Werkstudent, Personio's `working_student`) is employed part-time
    # beside their studies: not an internship (the job type `student` says the rest).
    "working student": PART_TIME, "werkstudent": PART_TIME, "werkstudentin": PART_TIME,
    # contract: an independent contractor or freelancer, not an employee
    "contract": CONTRACT, "contractor": CONTRACT, "contracting": CONTRACT,
    "contract to hire": CONTRACT, "independent contractor": CONTRACT,
    "freelance": CONTRACT, "freelancer": CONTRACT, "freiberuflich": CONTRACT,
    "freie mitarbeit": CONTRACT, "freier mitarbeiter": CONTRACT, "independant": CONTRACT,
    "consultant": CONTRACT, "hop dong": CONTRACT, "cong tac vien": CONTRACT,
    "tu do": CONTRACT, "lam viec tu do": CONTRACT,
    # temporary: employed for a fixed term (a CDD, "befristet", seasonal work)
    "temporary": TEMPORARY, "temp": TEMPORARY, "seasonal": TEMPORARY, "short term": TEMPORARY,
    "fixed term": TEMPORARY, "limited term": TEMPORARY, "casual": TEMPORARY,
    "befristet": TEMPORARY, "aushilfe": TEMPORARY, "cdd": TEMPORARY, "interim": TEMPORARY,
    "duree determinee": TEMPORARY, "thoi vu": TEMPORARY, "tam thoi": TEMPORARY,
    # internship, apprenticeship and work-study (co-op, alternance)
    "intern": INTERNSHIP, "interns": INTERNSHIP, "internship": INTERNSHIP,
    "trainee": INTERNSHIP, "traineeship": INTERNSHIP, "apprentice": INTERNSHIP,
    "apprenticeship": INTERNSHIP, "co op": INTERNSHIP, "coop": INTERNSHIP,
    "praktikum": INTERNSHIP, "praktikant": INTERNSHIP, "praktikantin": INTERNSHIP,
    "ausbildung": INTERNSHIP, "stage": INTERNSHIP, "stagiaire": INTERNSHIP,
    "alternance": INTERNSHIP, "apprentissage": INTERNSHIP, "thuc tap": INTERNSHIP,
    "thuc tap sinh": INTERNSHIP, "practicas": INTERNSHIP, "tirocinio": INTERNSHIP,
    # volunteer
    "volunteer": VOLUNTEER, "voluntary": VOLUNTEER, "benevole": VOLUNTEER,
    "benevolat": VOLUNTEER, "ehrenamt": VOLUNTEER, "ehrenamtlich": VOLUNTEER,
    "tinh nguyen": VOLUNTEER,
    # per diem: paid by the day or shift as needed (healthcare's PRN)
    "per diem": PER_DIEM, "perdiem": PER_DIEM, "prn": PER_DIEM, "pro re nata": PER_DIEM,
    # schema.org's OTHER is a stated value: other, and known
    "other": OTHER,
    # open-ended contract, hours not said
    "permanent": _PERMANENT, "cdi": _PERMANENT, "duree indeterminee": _PERMANENT,
    "unbefristet": _PERMANENT, "festanstellung": _PERMANENT, "festangestellt": _PERMANENT,
    "regular": _NEUTRAL,  # per platform: see REGULAR_MEANS_FULL_TIME
    # filler around a stated type
    "salaried": _NEUTRAL, "hourly": _NEUTRAL, "employee": _NEUTRAL, "position": _NEUTRAL,
    "job": _NEUTRAL, "role": _NEUTRAL, "or": _NEUTRAL, "and": _NEUTRAL, "time": _NEUTRAL,
    "contrat": _NEUTRAL, "a": _NEUTRAL, "de": _NEUTRAL,
}  # fmt: skip
_LONGEST = max(len(p.split()) for p in _PHRASES)

# "Regular" is a worker type, not hours. On these platforms it is the value their
# employers choose for an ordinary salaried employee beside "Intern", "Temporary" and
# "Contractor" (Greenhouse's "Employment Type" field, Workday's worker type, SAP
# SuccessFactors' "Type of Employment", Oracle Recruiting and iCIMS' position type):
# there it reads as a permanent position, so full-time unless hours are stated. Anywhere
# else nobody says what "Regular" means, so alone it is `other`.
REGULAR_MEANS_FULL_TIME = frozenset({"greenhouse", "workday", "successfactors", "oracle", "icims"})

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_NOT_WORD = re.compile(r"[^a-z0-9]+")


def words(raw: str) -> list[str]:
    """The value as folded words: "FullTime" -> full time, "FULL_TIME" -> full time,
    "Toàn thời gian" -> toan thoi gian, "fulltime_permanent" -> fulltime permanent."""
    text = _CAMEL.sub(" ", unicodedata.normalize("NFKC", raw))
    decomposed = unicodedata.normalize("NFKD", text.replace("đ", "d").replace("Đ", "D"))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    return _NOT_WORD.sub(" ", plain).split()


def _markers(tokens: list[str]) -> list[str]:
    """Every known phrase's value, the longest phrase at each position first."""
    found: list[str] = []
    at = 0
    while at < len(tokens):
        for size in range(min(_LONGEST, len(tokens) - at), 0, -1):
            value = _PHRASES.get(" ".join(tokens[at : at + size]))
            if value is not None:
                found.append(value)
                at += size
                break
        else:
            at += 1  # a word nobody mapped: the others may still say the type
    return found


def employment_types(raw: str | None, platform: str | None = None) -> tuple[str, ...]:
    """The canonical types a stated value says, in VOCABULARY order; () when nothing is
    stated, ("other",) when nothing in it is known."""
    if raw is None or not raw.strip():
        return ()
    tokens = words(raw)
    found = _markers(tokens)
    types = {value for value in found if value in VOCABULARY}
    permanent = _PERMANENT in found or ("regular" in tokens and platform in REGULAR_MEANS_FULL_TIME)
    if permanent and not types - {OTHER}:
        types = {FULL_TIME}
    if not types:
        return (OTHER,)
    if len(types) > 1:
        types.discard(OTHER)  # a known value beside schema.org's OTHER says more
    return ordered(types)


def ordered(values: Iterable[str]) -> tuple[str, ...]:
    chosen = set(values)
    return tuple(v for v in VOCABULARY if v in chosen)


def is_mapped(raw: str | None, platform: str | None = None) -> bool:
    """Does some known phrase read this value (so `other`, if it is that, was stated)?"""
    if employment_types(raw, platform) != (OTHER,):
        return True
    return OTHER in _markers(words(raw or ""))


# ---------------------------------------------------------------- one posting

# The enrichment's own vocabulary (pipeline.enrich.lexicon.EMPLOYMENT_TYPE) in this one.
EXTRACTED = {
    "full_time": FULL_TIME, "part_time": PART_TIME, "contract": CONTRACT,
    "temporary": TEMPORARY, "internship": INTERNSHIP, "freelance": CONTRACT,
}  # fmt: skip
INTERN_JOB_TYPES = frozenset({"intern", "co-op"})
# Seniorities a new-grad role can have; anything above it contradicts the title.
NEW_GRAD_SENIORITIES = frozenset({"junior"})


@dataclass(frozen=True)
class Coherent:
    """A posting's employment type, job type and seniority, agreeing with each other."""

    employment_type: tuple[str, ...]
    job_type: str | None
    seniority: str | None


def coherent(
    stated: tuple[str, ...],
    *,
    job_type: str | None,
    seniority: str | None,
    extracted: str | None,
) -> Coherent:
    """Settle one posting (docs/data-model.md, "Employment type"):

    1. An internship is an internship whoever says so: the title's job type (intern,
       co-op), the stated type, the enrichment's seniority (intern) or its extracted
       type. Platforms default the stated type to full-time ("FULL_TIME (intern)"), so
       the more specific claim wins: the published type is internship (the stated hours
       of an internship are its schedule, not its kind, and go; a stated contract or
       fixed term stays), the job type intern (co-op kept), the seniority intern.
    2. Otherwise the stated type (a platform field) wins over the enrichment's reading
       of the description; the extracted type fills in only when nothing known is
       stated (nothing at all, or only a value nobody mapped).
    3. A new-grad title fixes the seniority at junior when the enrichment read more.
    """
    extracted_type = EXTRACTED.get(extracted or "")
    intern = (
        job_type in INTERN_JOB_TYPES
        or INTERNSHIP in stated
        or seniority == "intern"
        or extracted_type == INTERNSHIP
    )
    if intern:
        kept = {v for v in stated if v not in HOURS and v != OTHER}
        return Coherent(
            ordered({*kept, INTERNSHIP}),
            job_type if job_type in INTERN_JOB_TYPES else "intern",
            "intern",
        )
    types = stated
    if not set(stated) - {OTHER} and extracted_type is not None:
        types = (extracted_type,)
    if job_type == "new_grad" and seniority is not None and seniority not in NEW_GRAD_SENIORITIES:
        seniority = "junior"
    return Coherent(types, job_type, seniority)
