"""One work mode per posting: `onsite`, `hybrid`, `remote` or `unknown`, and where it came from.

Three readings exist of where a job is done: the parser's (a platform's structured field
such as Lever's `workplaceType` or Ashby's `isRemote`, or the location string where the
platform has no such field), the location normalizer's (the location text's own remote
and hybrid words, `location.remote`), and the enrichment's (an excerpt of the
description). They are published as one value, in this order:

1. the posting's field (the parser's tri-state, `remote`: yes or hybrid);
2. the location text (`location.remote`, when the field said nothing);
3. the description excerpt (the enrichment's `work_mode`, the only reading that says
   onsite: the parsers never guess "no", see pipeline.normalize.locations.remote);
4. otherwise unknown.

A structured field is what the employer set for this purpose; the location text is the
employer's too but written for people; a description excerpt is a model's reading of
prose that often mentions other teams or offices. Pure: the publish step calls it.
"""

from __future__ import annotations

from dataclasses import dataclass

WORK_MODES = ("onsite", "hybrid", "remote", "unknown")
UNKNOWN = "unknown"
SOURCES = ("field", "location", "description")
# The parser's and the location normalizer's tri-state (yes | hybrid | unknown).
_TRI_STATE = {"yes": "remote", "hybrid": "hybrid"}
# The `remote` filter of old clients, an alias of `work_mode` on the same column:
# its old values and the work modes themselves.
REMOTE_ALIAS = {"yes": "remote", "hybrid": "hybrid", "no": "onsite", **{m: m for m in WORK_MODES}}


@dataclass(frozen=True)
class WorkMode:
    value: str  # one of WORK_MODES
    source: str | None  # one of SOURCES; None when unknown


def work_mode(field: str | None, location: str | None, described: str | None) -> WorkMode:
    """The published work mode by the precedence above."""
    if field in _TRI_STATE:
        return WorkMode(_TRI_STATE[field], "field")
    if location in _TRI_STATE:
        return WorkMode(_TRI_STATE[location], "location")
    if described in WORK_MODES and described != UNKNOWN:
        return WorkMode(described, "description")
    return WorkMode(UNKNOWN, None)
