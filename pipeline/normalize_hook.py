"""Location normalization as the parse phase calls it.

The normalizer (pipeline.normalize.locations) resolves every office against
GeoNames; until it is present this returns the offices as stated, unresolved,
which serving reads as "could be anywhere" (unknown stays unknown).
"""

from __future__ import annotations

from typing import Any

from parsers.types import Posting


def location_texts(posting: Posting) -> list[str]:
    texts = [office.text for office in posting.offices if office.text]
    if not texts and posting.location_text:
        texts = [posting.location_text]
    return texts


def normalize_location(posting: Posting) -> dict[str, Any]:
    texts = location_texts(posting)
    return {
        "input": " | ".join(texts),
        "offices": [],
        "countries": [],
        "remote": posting.remote,
        "unresolved": texts,
        "more_offices": posting.more_offices,  # counted but unnamed ("Hà Nội & 2 nơi khác")
    }
