"""Re-normalizing never takes a place away.

When the normalizer improves, a posting is normalized again from the same
text. The new result may add offices and countries, never remove one that an
earlier run found: a job that was in a country's feed stays there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import LocationResult
from .text import fold


def merge_never_remove(
    previous: LocationResult | Mapping[str, Any] | None,
    new: LocationResult,
) -> LocationResult:
    """`new`, plus every office and country of `previous` that `new` lacks.

    Only results of the same text are merged. When the posting's text itself
    changed, the old places described a different posting and `new` stands.
    Unresolved parts come from `new` alone: resolving them is the improvement.
    """
    if previous is None:
        return new
    old = previous if isinstance(previous, LocationResult) else LocationResult.from_dict(previous)
    if fold(old.input) != fold(new.input):
        return new
    kept = [o for o in old.offices if not any(o.same_place(n) for n in new.offices)]
    return LocationResult(
        input=new.input,
        offices=new.offices + tuple(kept),
        countries=tuple(sorted(set(new.countries) | set(old.countries))),
        remote=new.remote if new.remote != "unknown" else old.remote,
        unresolved=new.unresolved,
        more_offices=max(new.more_offices, old.more_offices),
    )
