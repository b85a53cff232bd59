"""The skill catalogue and its matcher: exact aliases, boundaries, ambiguous names."""

from __future__ import annotations

import pytest

from pipeline.enrich.catalog import load_catalog
from pipeline.enrich.text import flat, normalize


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def keys(catalog, text: str) -> list[str]:
    return [m.key for m in catalog.find(flat(normalize(text)))]


def test_catalogue_has_at_least_300_keys_each_with_a_category(catalog) -> None:
    assert len(catalog) >= 300
    assert all(skill.category for skill in catalog.skills.values())
    assert sum(1 for s in catalog.skills.values() if any(not a.isascii() for a in s.aliases)) >= 50


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("C++, C# and .NET with Node.js", ["cpp", "csharp", "dotnet", "nodejs"]),
        ("ASP.NET Core services", ["aspnet"]),
        ("Backend in Go and PostgreSQL", ["go", "postgresql"]),
        ("Golang microservices", ["go", "microservices"]),
        ("Experience with C and Python", ["c", "python"]),
        ("Lập trình viên Java", ["java"]),
        ("Thành thạo tiếng Anh và Excel, có kiến thức kế toán", ["english", "excel", "accounting"]),
        ("Strong SQL and R skills", ["sql", "r"]),
    ],
)
def test_names_full_text_search_mangles_are_matched_exactly(catalog, text, expected) -> None:
    assert keys(catalog, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Go beyond what is expected of you.",
        "Let's go! We go to conferences.",
        "Go to market with our sales team.",
        "Enjoy Java coffee every morning.",
        "A grade C or above in Mathematics.",
        "You will lead our R&D team.",
        "You excel at communication.",
        "Spark joy in customers every day.",
    ],
)
def test_traps_give_no_skill(catalog, text) -> None:
    assert keys(catalog, text) == []


def test_offsets_point_at_the_alias_in_the_normalised_text(catalog) -> None:
    text = flat(normalize("We ship\u00a0Node.js   and “Go” daily"))
    for match in catalog.find(text):
        assert text[match.start : match.end] == match.alias


def test_a_model_label_maps_to_its_key_or_stays_unmapped(catalog) -> None:
    assert catalog.key_for_label("Node.js") == "nodejs"
    assert catalog.key_for_label("golang") == "go"
    assert catalog.key_for_label("spring_boot") == "spring_boot"
    assert catalog.key_for_label("Quantum Basket Weaving") is None


def test_an_alias_claimed_by_two_keys_fails_loudly(tmp_path) -> None:
    path = tmp_path / "skills.yaml"
    path.write_text("skills:\n  a: {c: x, en: [Foo]}\n  b: {c: x, en: [foo]}\n")
    with pytest.raises(ValueError, match="belongs to both a and b"):
        load_catalog(path)
