"""Location normalization as the parse phase calls it.

Every posting's offices are resolved against GeoNames (pipeline.normalize.locations).
Offices the listing counts but does not name ("2 Locations", "Hà Nội & 2 nơi khác")
stay unresolved, so the posting could still be anywhere until its page names them.
Re-normalizing after an improvement never drops an office found before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from parsers.types import Posting
from pipeline.normalize.locations import locate, merge_never_remove


def location_texts(posting: Posting) -> list[str]:
    texts = [office.text for office in posting.offices if office.text]
    if not texts and posting.location_text:
        texts = [posting.location_text]
    return texts


def normalize_location(
    posting: Posting, previous: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    hint = posting.remote if posting.remote != "unknown" else None
    result = locate(location_texts(posting), remote_hint=hint)
    if previous:
        result = merge_never_remove(previous, result)
    data = result.to_dict()
    if posting.more_offices > data["more_offices"]:
        data["more_offices"] = posting.more_offices
        # Unnamed offices could be anywhere: say so, so no consumer excludes the job.
        data["unresolved"] = [*data["unresolved"], f"{posting.more_offices} more offices"]
    return data
