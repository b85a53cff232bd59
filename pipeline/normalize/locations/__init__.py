"""Location normalization: raw location text -> offices resolved against GeoNames.

The rule that governs everything: an unresolved location is fine; wrongly
excluding a job from a country it could be in is not. See docs/locations.md.
"""

from .api import locate
from .merge import merge_never_remove
from .model import LocationResult, Office
from .places import dedupe_offices, office_label, place_duplicates

__all__ = [
    "LocationResult",
    "Office",
    "dedupe_offices",
    "locate",
    "merge_never_remove",
    "office_label",
    "place_duplicates",
]
