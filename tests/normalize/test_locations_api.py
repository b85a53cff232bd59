"""The public API: result shape, consumer reading, bad input, merging, threads."""

from __future__ import annotations

import json
import threading
import unicodedata
from dataclasses import FrozenInstanceError

import pytest

from pipeline.normalize.locations import (
    LocationResult,
    Office,
    gazetteer,
    locate,
    merge_never_remove,
)

OFFICE_KEYS = {"city", "region", "country", "geonameid", "ambiguous"}
RESULT_KEYS = {"input", "offices", "countries", "remote", "unresolved", "more_offices"}


# ------------------------------------------------------------------ the shape


def test_to_dict_is_exactly_the_documented_json_shape() -> None:
    data = locate("Toronto, CA | Remote - US").to_dict()
    assert set(data) == RESULT_KEYS
    assert data["input"] == "Toronto, CA | Remote - US"
    assert data["countries"] == ["CA", "US"]
    assert data["remote"] == "yes"
    assert data["unresolved"] == []
    assert data["more_offices"] == 0
    assert [set(o) for o in data["offices"]] == [OFFICE_KEYS, OFFICE_KEYS]
    assert data["offices"][0] == {
        "city": "Toronto",
        "region": "Ontario",
        "country": "CA",
        "geonameid": 6167865,
        "ambiguous": False,
    }
    assert json.loads(json.dumps(data)) == data


def test_from_dict_round_trips() -> None:
    result = locate("Paris | Hà Nội & 2 nơi khác")
    assert LocationResult.from_dict(result.to_dict()) == result


def test_results_are_immutable() -> None:
    result = locate("Austin, TX")
    with pytest.raises(FrozenInstanceError):
        result.remote = "yes"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        result.offices[0].country = "CA"  # type: ignore[misc]


def test_countries_are_sorted_and_unique() -> None:
    result = locate("Zürich, CH; Austin, TX; Berlin, Germany; Austin, TX")
    assert result.countries == ("CH", "DE", "US")
    assert len(result.offices) == 3


def test_same_text_same_result() -> None:
    assert locate("San Francisco, CA | Paris") == locate("San Francisco, CA | Paris")


# ---------------------------------------------------------- the consumer rule


@pytest.mark.parametrize(
    ("text", "inside", "outside"),
    [
        ("Austin, TX", "US", "CA"),
        ("Remote", "US", None),  # no country at all: anywhere
        ("Paris, Texs", "US", None),  # an unresolved part: anywhere
        ("2 Locations", "DE", None),
        ("Toronto, ON", "CA", "US"),
    ],
)
def test_could_be_in(text: str, inside: str, outside: str | None) -> None:
    result = locate(text)
    assert result.could_be_in(inside)
    assert result.could_be_in(inside.lower())
    if outside is not None:
        assert not result.could_be_in(outside)


def test_hints_never_cross_strings_of_one_posting() -> None:
    joined = locate("Atlanta, Georgia")
    apart = locate(["Atlanta", "Georgia"])
    assert joined.countries == ("US",)
    assert "GE" in apart.countries, "a lone 'Georgia' may be the country"
    assert apart.input == "Atlanta | Georgia"


def test_hints_never_cross_offices() -> None:
    result = locate("Amsterdam; Noord-Holland")
    assert "US" in result.countries, "Amsterdam, New York stays possible: no hint crosses ';'"
    assert "NL" in result.countries


def test_a_sequence_of_office_strings_is_one_posting() -> None:
    result = locate(["New York, NY", "London, UK", "Remote - Canada"])
    assert result.countries == ("CA", "GB", "US")
    assert result.remote == "yes"
    assert len(result.offices) == 3


# ----------------------------------------------------------------- bad input


@pytest.mark.parametrize("text", ["", "   ", "\n\t ", None, [], ["", "  "], [None]])
def test_empty_input_gives_an_empty_result(text: object) -> None:
    result = locate(text)  # type: ignore[arg-type]
    assert result.offices == ()
    assert result.countries == ()
    assert result.unresolved == ()
    assert result.remote == "unknown"
    assert result.more_offices == 0
    assert result.could_be_in("US"), "nothing known: the job stays in"


@pytest.mark.parametrize(
    "text",
    ["!!!@@@###", "asdkjhqwe zzzqq", "北京市", "🚀🌍", "Foo Bar Baz", "\x00\x07weird\x1b"],
)
def test_garbage_stays_unresolved_never_guessed(text: str) -> None:
    result = locate(text)
    assert result.could_be_in("US")
    assert result.could_be_in("VN")
    assert not result.countries or result.unresolved


@pytest.mark.parametrize("value", [123, 4.5, {"city": "Paris"}, object(), [1, 2], ["ok", 3]])
def test_non_string_input_is_refused_clearly(value: object) -> None:
    with pytest.raises(TypeError, match="str"):
        locate(value)  # type: ignore[arg-type]


def test_bytes_are_read_as_utf8() -> None:
    assert locate("Hà Nội".encode()).countries == ("VN",)
    assert locate(b"\xff\xfe").could_be_in("US")


def test_decomposed_unicode_reads_like_composed() -> None:
    text = "Thành phố Hồ Chí Minh"
    decomposed = unicodedata.normalize("NFD", text)
    assert decomposed != text
    assert locate(decomposed).offices == locate(text).offices


def test_very_long_text_is_cut_and_the_rest_stays_unresolved() -> None:
    text = "Austin, TX; " + "Foo Bar; " * 2000 + "Toronto, ON"
    result = locate(text)
    assert "US" in result.countries
    assert result.unresolved, "what was not read could name any country"
    assert result.could_be_in("CA")
    assert len(result.unresolved[-1]) <= 60


def test_one_very_long_word() -> None:
    result = locate("x" * 50_000)
    assert result.could_be_in("US")
    assert result.offices == ()


def test_remote_hint_must_be_a_known_value() -> None:
    with pytest.raises(ValueError, match="remote_hint"):
        locate("Austin, TX", remote_hint="true")


@pytest.mark.parametrize(
    ("text", "hint", "expected"),
    [
        ("Austin, TX", "yes", "yes"),  # the text is silent: the platform's flag
        ("Austin, TX", "hybrid", "hybrid"),
        ("Austin, TX", None, "unknown"),
        ("Austin, TX", "unknown", "unknown"),
        ("Hybrid - Austin, TX", "yes", "hybrid"),  # the text wins
        ("Remote - US", "hybrid", "yes"),
        ("Austin, TX (Onsite)", "yes", "unknown"),  # onsite: never a guessed "no"
    ],
)
def test_remote_from_text_then_platform(text: str, hint: str | None, expected: str) -> None:
    assert locate(text, remote_hint=hint).remote == expected


# ------------------------------------------------------------ never remove


def test_merge_keeps_what_an_earlier_run_found() -> None:
    new = locate("Nederland")
    earlier = LocationResult(
        input="Nederland",
        offices=(Office("Nederland", "Texas", "US", 4715583, True),),
        countries=("US",),
        remote="hybrid",
        unresolved=("Nederland",),
        more_offices=1,
    )
    merged = merge_never_remove(earlier, new)
    assert set(merged.countries) >= {"US", "NL"}
    assert earlier.offices[0] in merged.offices
    assert merged.offices[: len(new.offices)] == new.offices
    assert merged.unresolved == new.unresolved, "resolving a part is the improvement"
    assert merged.remote == "hybrid", "unknown never overwrites a finding"
    assert merged.more_offices == 1


def test_merge_accepts_stored_json_and_none() -> None:
    new = locate("Austin, TX")
    assert merge_never_remove(None, new) == new
    stored = locate("Austin, TX").to_dict()
    stored["countries"] = ["US", "MX"]
    assert merge_never_remove(stored, new).countries == ("MX", "US")


def test_merge_does_not_duplicate_the_same_office() -> None:
    new = locate("Austin, TX")
    assert merge_never_remove(new, new) == new


def test_merge_ignores_a_result_of_different_text() -> None:
    """The posting itself changed: its old places described another posting."""
    old = locate("London, UK")
    new = locate("Austin, TX")
    assert merge_never_remove(old, new) == new


# ---------------------------------------------------------------- the index


def test_index_loads_once_across_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    real = gazetteer.get_index()
    calls: list[int] = []
    barrier = threading.Barrier(8)

    def slow_load() -> gazetteer.Index:
        calls.append(1)
        return real

    monkeypatch.setattr(gazetteer, "INDEX", None)
    monkeypatch.setattr(gazetteer, "load_or_build", slow_load)
    results: list[gazetteer.Index] = []

    def worker() -> None:
        barrier.wait()
        results.append(gazetteer.get_index())

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [1]
    assert all(index is real for index in results)


def test_locate_from_many_threads_agrees() -> None:
    texts = ["Paris", "Austin, TX", "Hà Nội, Hồ Chí Minh", "EMEA", "Toronto, CA"] * 20
    expected = [locate(t) for t in texts]
    got: list[LocationResult | None] = [None] * len(texts)

    def worker(start: int) -> None:
        for i in range(start, len(texts), 4):
            got[i] = locate(texts[i])

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == expected
