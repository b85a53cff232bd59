"""Breezy HR: the public careers JSON (`https://{company}.breezy.hr/json?verbose=true`)
and the hosted position page (`/p/{friendly_id}`, schema.org JSON-LD).

Feed quirks: a top-level array, the whole board in one response; without
`verbose=true` the rows have no `description`. Most attributes nest as
`{id, name}` (`type`, `location.country`, `location.state`, sometimes `department`);
`location` has `name`, `city`, `is_remote` and `remote_details`, and newer boards add
a `locations` list; `salary` is display text; `url` is the hosted `/p/{friendly_id}`
page, whose `/apply` form is the apply URL; `company.name` is the brand. A
position's `id` is 12 hex digits and its `friendly_id` that id plus a title slug, so
the hosted page's path names the same id the feed does.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.text import parse_salary_text
from parsers.types import ParseOutcome, RawDocument

PARSER_VERSION = "1"

# Pure, and a board repeats its pay texts: parsed once per distinct text.
_salary_text = lru_cache(maxsize=4096)(parse_salary_text)


def _adapt(draft: Draft, position: dict[str, Any], ctx: Context) -> None:
    salary = position.get("salary")
    if isinstance(salary, str) and salary.strip():
        draft["salary"] = _salary_text(salary)
    url = draft.get("url")
    if isinstance(url, str) and "/p/" in url:
        draft["apply_url"] = url.rstrip("/") + "/apply"


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="breezy", id_pattern=r"/p/([0-9a-f]{12})(?:-|/|$)")


parse_breezy = register("breezy", PARSER_VERSION)(
    JsonParser(mappings.BREEZY, adapt=_adapt, page=parse_page)
)
