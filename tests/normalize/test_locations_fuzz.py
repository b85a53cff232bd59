"""Random text never breaks `locate`, and every result keeps its invariants."""

from __future__ import annotations

import random
import re

from pipeline.normalize.locations import locate
from pipeline.normalize.locations.model import REMOTE_VALUES

PIECES = [
    "San Francisco",
    "CA",
    "ca",
    "New York",
    "NY",
    "Remote",
    "Hybrid",
    "Onsite",
    "London",
    "UK",
    "Paris",
    "France",
    "Hà Nội",
    "Hồ Chí Minh",
    "TP.HCM",
    "EMEA",
    "APAC",
    "Anywhere",
    "Georgia",
    "Toronto",
    "ON",
    "2 Locations",
    "& 3 nơi khác",
    "+2 more",
    "Others",
    "Quận 1",
    "Phường 5",
    "Tower",
    "Mall",
    "non-U.S.",
    "Springfield",
    "Texas",
    "US",
    "Nederland",
    "Noord-Holland",
    "Bay Area",
    "x",
    "123",
    "94105",
    "#",
    "@",
    "é",
    "ß",
    "北京",
    "🚀",
    "\t",
    "\n",
    "  ",
    "--",
    "(",
    ")",
    "[",
    "]",
    "/",
    " / ",
    ";",
    "|",
    ",",
    " or ",
    " and ",
    "&",
    "-",
    "–",
    ".",
    "'",
    "’",
]
ISO2 = re.compile(r"^[A-Z]{2}$")


def _random_text(rng: random.Random) -> str:
    parts = [rng.choice(PIECES) for _ in range(rng.randint(0, 12))]
    joiners = ["", " ", ", ", " - ", "-"]
    return "".join(p + rng.choice(joiners) for p in parts)


def test_random_text_keeps_the_invariants() -> None:
    rng = random.Random(20261130)
    for _ in range(3000):
        text = _random_text(rng)
        result = locate(text)
        assert result.input == text
        assert list(result.countries) == sorted(set(result.countries)), text
        assert all(ISO2.match(code) for code in result.countries), text
        assert result.remote in REMOTE_VALUES, text
        assert result.more_offices >= 0, text
        assert all(u for u in result.unresolved), text
        for office in result.offices:
            assert office.country is None or office.country in result.countries, text
        assert result.to_dict()["countries"] == list(result.countries)
        if not result.countries or result.unresolved:
            assert result.could_be_in("ZZ"), text
