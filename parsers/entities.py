"""Legal-entity labels: internal names of an employing entity that are not a brand.

Workday's `hiringOrganization.name` is the Workday "company" record, a legal
entity: "631 Example Corp_United States", "IL00 Subsidiary Technologies, Ltd.".
Greenhouse office names are often the same kind of label ("Acme India Private
Limited"). Shown as a company or read as a place they put wrong data in front
of visitors, so parsers keep them apart (`Posting.legal_entity`).
"""

from __future__ import annotations

import re

# An entity code: a leading cost-centre or company code ("631 ", "IL00 ", "US01-",
# "C1234 "), or a trailing "_Country" / "_01" qualifier.
ENTITY_CODE = re.compile(
    r"^\s*[A-Z]{0,4}\d{2,}[A-Z0-9]*(?:\s+|\s*[-_:]\s*)(?=\S)|_[A-Za-z0-9][\w .&-]*$"
)
# Legal forms: a label ending in one names an entity (the brand rarely carries it).
_LEGAL_FORM = re.compile(
    r"[\s,](?:private limited|pvt\.? ltd\.?|ltd\.?|limited|llc|l\.l\.c\.|inc\.?|incorporated|"
    r"corp\.?|corporation|gmbh(?: & co\.? kg)?|ag|s\.?a\.?s?\.?|s\.?r\.?l\.?|s\.?l\.?|b\.?v\.?|"
    r"n\.?v\.?|plc|pty\.?(?: ltd\.?)?|llp|k\.?k\.?|oy|ab|a/s|as|sp\. z o\.o\.|kft\.?|s\.?p\.?a\.?|"
    r"sarl|co\.,? ltd\.?|ulc|lp)\s*$",
    re.I,
)


def has_entity_code(name: str | None) -> bool:
    """A label carrying an internal entity code: never a brand to show."""
    return bool(name) and ENTITY_CODE.search(name) is not None  # type: ignore[arg-type]


def looks_like_legal_entity(name: str | None) -> bool:
    """An entity code, or a legal form at the end ("… Private Limited", "… GmbH")."""
    if not name:
        return False
    return has_entity_code(name) or _LEGAL_FORM.search(name) is not None
