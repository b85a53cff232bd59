"""Words in location strings that are not places.

Every word listed here is "explained" without naming a place, so it never
counts as an unexplained word and is never looked up as a town: a town called
Remote (Oregon) or Home (Kansas) must not turn "Remote" or "Home Office" into
an office in the US.
"""

from __future__ import annotations

from enum import Enum


class Noise(Enum):
    REMOTE = "remote"  # the job can be done away from an office
    HYBRID = "hybrid"
    ONSITE = "onsite"  # says nothing against remote work: remote stays "unknown"
    FILLER = "filler"  # carries no place and no work mode
    SITE = "site"  # a building or street word: the words around it may name the site
    SUBUNIT = "subunit"  # "Quận", "Phường": the words after it name a district or ward
    CONNECTOR = "connector"  # "and", "&": what follows is another office
    NEGATION = "negation"  # "non-US", "outside the EU": the places named are excluded

    # Members are singletons: hash by identity (Enum's own hash runs Python code).
    __hash__ = object.__hash__


_CONNECTOR = "and und et va"
# Words that carry no place.
_FILLER = """
office offices hq headquarters head office based location locations area areas metro
metropolitan metroplex greater region regions state province county country city town
nationwide countrywide the of in at near from within to for with only preferred
required optional travel travelling traveling relocation relocate friendly first any all
across multiple various several north south east west central northern southern eastern
western northeast northwest southeast southwest upstate downtown uptown capital
time zone timezone timezones hours est pst cst mst cet gmt utc
based in open to eligible must be available great opening
tinh thanh pho tp kv tai
"""
# Building and street words: a part with one of these and a word we cannot
# explain names a site ("Al Sila Tower"), and the place words in it are not
# trusted ("Sila" is also a region of Chad).
_SITE = """
tower towers building bldg campus center centre mall plaza square street st avenue ave
road rd blvd boulevard suite floor house court lane drive hub lab labs studio factory
plant warehouse store shop shopping outlet executive regus spaces wework coworking
gate pier hills gardens park place alle allee rue via calle strasse str
khu cong nghiep kcn toa nha lau tang so duong pho ngo ngach hem
"""


def _phrases(block: str) -> list[str]:
    return block.split()


# Vietnamese addresses name wards and districts after these words; their
# names are often towns elsewhere ("Phường Mai"), so the part holds no place.
_SUBUNITS = (
    "quan",
    "q",
    "phuong",
    "p",
    "huyen",
    "xa",
    "thi xa",
    "thi tran",
    "ward",
    "district",
)
_NEGATIONS = ("non", "outside", "except", "excluding", "excl")
_MULTI: dict[Noise, list[str]] = {
    Noise.REMOTE: [
        "remote first",
        "remote friendly",
        "fully remote",
        "work from home",
        "working from home",
        "from home",
        "home based",
        "home office",
        "off site",
        "tu xa",
        "lam viec tu xa",
        "lam viec tai nha",
    ],
    Noise.HYBRID: ["hybrid remote"],
    Noise.ONSITE: ["on site", "in office", "in person", "office based", "tai van phong"],
    Noise.FILLER: [
        "head office",
        "time zone",
        "thanh pho",
        "khu vuc",
        "hoi so",  # Vietnamese: head office
        "tru so",
        "van phong",
        "chi nhanh",  # branch
        "based in",
        "open to",
        "must be",
    ],
    Noise.SITE: ["khu cong nghiep", "toa nha"],
}
_SINGLES: dict[Noise, str] = {
    Noise.REMOTE: (
        "remote remotely wfh homebased offsite telecommute telecommuting telework "
        "teleworking teletrabajo distributed virtual home"
    ),
    Noise.HYBRID: "hybrid hybride hibrido ibrido flexible",
    Noise.ONSITE: "onsite presencial",
}


def _build() -> dict[str, Noise]:
    table: dict[str, Noise] = {}
    for word in _phrases(_FILLER):
        table[word] = Noise.FILLER
    for word in _phrases(_SITE):
        table[word] = Noise.SITE
    for word in _SUBUNITS:
        table[word] = Noise.SUBUNIT
    for word in _NEGATIONS:
        table[word] = Noise.NEGATION
    for word in _phrases(_CONNECTOR):
        table[word] = Noise.CONNECTOR
    for kind, words in _SINGLES.items():
        for word in words.split():
            table[word] = kind
    for kind, phrases in _MULTI.items():
        for phrase in phrases:
            table[phrase] = kind
    return table


NOISE: dict[str, Noise] = _build()
NOISE_MAX_WORDS = max(len(k.split()) for k in NOISE)


def noise_prefixes() -> set[str]:
    """Proper prefixes of multi-word noise phrases (lets the span search stop early)."""
    out: set[str] = set()
    for phrase in NOISE:
        words = phrase.split()
        for n in range(1, len(words)):
            out.add(" ".join(words[:n]))
    return out
