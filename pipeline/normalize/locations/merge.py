"""Re-normalizing never takes a place away.

When the normalizer improves, a posting is normalized again from the same
text. The new result may add offices and countries, never remove one that an
earlier run found: a job that was in a country's feed stays there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import LocationResult
from .places import dedupe_offices
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
    return LocationResult(
        input=new.input,
        # An earlier run's office under an older name of the same place ("Ha Noi" before
        # "Hanoi") is that place, not another office (places.dedupe_offices).
        offices=dedupe_offices(new.offices + old.offices),
        countries=tuple(sorted(set(new.countries) | set(old.countries))),
        remote=new.remote if new.remote != "unknown" else old.remote,
        unresolved=new.unresolved,
        more_offices=max(new.more_offices, old.more_offices),
    )
