"""Who employs: the company a published posting names, and where that name came from.

Many platforms never state the employer per posting (Lever, Ashby, Workday, Jobvite,
Pinpoint, ...): the board is the employer's, so its owner names them all. The name
is resolved in this order (docs/data-model.md, "Company"):

1. the posting's own employer field (`posting`): what the employer wrote on it;
2. the board's `company:` in sources.yaml (`config`): the operator's word;
3. the board's name in the platform's listing envelope (`board`), such as the
   Workable widget's top-level `name`, recorded by the parse phase;
4. a readable name derived from the board token (`derived`), such as
   `quiet-bank` -> "Quiet Bank"; an opaque token (a Jobvite company id, a number)
   derives nothing, and the company stays unknown rather than guessed.

Sources 2-4 live on the board (`crawl.boards.company`, `company_source`); the
publish step calls `resolve_company` with the posting's own value. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.workday_sites import workday_site

# Where a board's company came from, strongest first (crawl.boards.company_source).
BOARD_SOURCES = ("config", "board", "derived")
# And where a published posting's company came from (serving.jobs.company_source).
SOURCES = ("posting", *BOARD_SOURCES)

# Words that name a careers site, not an employer: `careers-acme`, `jobs.acme.com`,
# Teamtailor's own board `career`.
_GENERIC = frozenset(
    {"career", "careers", "job", "jobs", "karriere", "talent", "hiring", "apply", "www", "hr"}
)
# Labels of a host that are registries, not names (acme.co.uk, acme.com.vn).
_REGISTRY_LABELS = frozenset({"co", "com", "org", "net", "ac", "gov", "edu"})
# Words with an acronym's case are kept as written (IBM, AWS); longer all-caps words
# too, because an operator or employer typed them that way (NVIDIA).
_CAMEL_HUMP = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
# A word as people write one: lower, upper, Capitalized or camelCase (DeltaWorks, AcmeAI);
# anything else, a digit inside or a random mix of cases, is an id.
_WORD = re.compile(r"^(?:[a-z]+|[A-Z]+|[A-Z]?[a-z]+(?:[A-Z][a-z]+)*(?:[A-Z]{2,})?)$")
_VOWELS = frozenset("aeiouyAEIOUY")
_SEPARATORS = re.compile(r"[-_.\s]+")
# A trailing counter tells two boards of one employer apart (Ubisoft2, cedarlabs01).
_TRAILING_DIGITS = re.compile(r"[-_]?\d+$")


@dataclass(frozen=True)
class Company:
    """A published company name and where it came from (None, None: not stated)."""

    name: str | None
    source: str | None


def resolve_company(
    own: str | None, board_company: str | None, board_source: str | None
) -> Company:
    """The posting's own company when it states one, else its board's."""
    stated = (own or "").strip()
    if stated:
        return Company(stated, "posting")
    board = (board_company or "").strip()
    if board and board_source in BOARD_SOURCES:
        return Company(board, board_source)
    return Company(None, None)


def company_from_token(platform: str, token: str) -> str | None:
    """A readable company name from a board token, or None when the token is opaque.

    Each platform's token names the employer in its own place: a Workday tenant
    (`nvidia.wd5/Site`, `wd3.myworkdaysite.com/recruiting/nvidia/Site`), an Oracle pod's first label (`acme.fa.us2.oraclecloud.com/CX_1`),
    a SuccessFactors company id (`career2.successfactors.eu/AcmeBank`) or career site
    (`jobs.acme.com`), a Jobvite career-site slug (`qZA9VfwF@acme`), an iCIMS portal
    (`careers-acme`), a Personio host (`acme.jobs.personio.com`); every other ATS token
    is the employer's slug. Job-site scopes (html_site) name a category, never an employer.
    """
    if platform == "html_site":
        return None
    return words_to_name(_name_part(platform, token.strip()))


def _name_part(platform: str, token: str) -> str:
    if platform == "workday":
        site = workday_site(token)
        return site.tenant if site else token.split("/", 1)[0].split(".", 1)[0]
    if platform == "successfactors":
        # `host/Company`, `host/Company@site`, or a Career Site Builder site's host alone.
        legacy, _, csb_site = token.partition("@")
        if "/" in legacy:
            return legacy.split("/", 1)[1]
        host = csb_site or legacy
        return "" if re.match(r"career\d*\.(?:successfactors|sapsf)\.", host) else _host_name(host)
    if platform == "jobvite":
        # `companyEId`, `companyEId@slug` or `@slug`: the career-site slug names someone.
        return token.partition("@")[2] or token
    if platform == "oracle":
        return _host_name(token.split("/", 1)[0])
    if platform == "personio" and "." in token:
        return token.split(".", 1)[0]
    if platform == "icims":
        return re.sub(r"^(?:careers|jobs)-|-(?:careers|jobs)$", "", token, flags=re.I)
    return token


def _host_name(host: str) -> str:
    """The employer's label of a host: an Oracle pod's first label (acme.fa.us2.
    oraclecloud.com), or the name under the registry of the employer's own domain
    (careers.acme.com, jobs.acme.co.uk)."""
    labels = [label for label in host.lower().split(".") if label]
    if host.lower().endswith(".oraclecloud.com"):
        return labels[0] if labels else ""
    named = [
        label
        for label in labels[:-1]  # the top-level domain never names anyone
        if label not in _GENERIC and label not in _REGISTRY_LABELS
    ]
    return named[-1] if named else ""


def words_to_name(text: str) -> str | None:
    """`quiet-bank` -> "Quiet Bank", `DeltaWorks` -> "Delta Works", `acme_ai` -> "Acme Ai";
    None when any part is not a word (an id such as `qZA9VfwF`, `4521`, `x7f3k2`)."""
    text = _TRAILING_DIGITS.sub("", text.strip())
    parts = [part for part in _SEPARATORS.split(text) if part]
    parts = [part for part in parts if part.lower() not in _GENERIC]  # acme-careers
    if not parts:
        return None
    words: list[str] = []
    for part in parts:
        humps = _CAMEL_HUMP.findall(part)
        if not _WORD.match(part) or not all(_has_vowel(hump) for hump in humps):
            return None
        if re.match(r"^[a-z][A-Z][a-z]", part):
            words.append(part)  # a brand's own case: iRobot, eBay
            continue
        words.extend(_cased(hump) for hump in humps)
    return " ".join(words)


def _has_vowel(word: str) -> bool:
    # A run of consonants is an id, not a word (xkcd, the Cd of AbCdEf); short acronyms
    # (IBM, AWS) and single letters (the i of iRobot) have none and are words.
    return (
        any(ch in _VOWELS for ch in word) or len(word) == 1 or (word.isupper() and len(word) <= 4)
    )


def _cased(word: str) -> str:
    return word if word.isupper() else word[:1].upper() + word[1:].lower()
