"""An extracted value's excerpt, placed in the field the API serves: job[field][start:end]
is the excerpt, whatever the normalisation enrichment measured its offsets in."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.enrich.evidence import locate
from pipeline.enrich.text import flat, normalize, posting_text
from serving_sync.evidence import holds, normalized_field, place, sentence, served_fields

# What real descriptions carry that the normalisation changes: curly quotes, dashes, no-break
# and zero-width spaces, soft hyphens, line breaks, runs of spaces, decomposed accents.
AWKWARD = st.sampled_from(
    [*"ab xyz.\n\t", "\u2019", "\u201c", "\u2014", "\u00a0", "\u200b", "\u00ad", "  ",
     "\r\n", "e\u0301", "\u00e9", "\u2028", "5+ "]
)  # fmt: skip
TEXTS = st.lists(AWKWARD, max_size=40).map("".join)


def enriched_item(job: dict, excerpt: str) -> dict:
    """A value as enrichment stores it: offsets in its own joined, normalised text."""
    text = flat(posting_text(job["title"], job["location_text"], job["description"]))
    span = locate(text, excerpt)
    assert span is not None
    return {"value": "x", "evidence": excerpt, "start": span[0], "end": span[1]}


@given(TEXTS)
@settings(max_examples=300, deadline=None)
def test_a_field_normalised_with_its_origins_is_the_normalisation_enrichment_uses(text) -> None:
    field = normalized_field("description", text)
    assert field.text == normalize(text)
    assert len(field.origin) == len(field.origin_end) == len(field.text)
    assert list(field.origin) == sorted(field.origin)
    assert all(0 <= at < len(text) for at in field.origin)


@given(TEXTS, TEXTS, st.data())
@settings(max_examples=300, deadline=None)
def test_any_excerpt_enrichment_accepts_is_served_at_offsets_a_reader_can_check(
    title, description, data
) -> None:
    job = {"title": "Data engineer " + title, "location_text": "Paris", "description": description}
    joined = flat(posting_text(job["title"], job["location_text"], job["description"]))
    start = data.draw(st.integers(0, len(joined) - 1))
    end = data.draw(st.integers(start + 1, len(joined)))
    excerpt = joined[start:end].strip()
    if not excerpt:
        return
    served = place(served_fields(job), enriched_item(job, excerpt)).as_dict()
    if served["field"] is None:  # an excerpt across two fields is in no single one
        assert all(excerpt not in flat(normalize(job[f] or "")) for f in job)
        return
    assert holds(job, served)
    assert normalize(served["evidence"]).replace("\n", " ") == excerpt


def test_an_excerpt_in_the_description_is_served_verbatim_with_its_curly_quote() -> None:
    job = {
        "title": "Data Engineer",
        "location_text": "Berlin",
        "description": "About us.\n\nYou\u2019ll need  5+ years of Python. We are kind.",
    }
    served = place(served_fields(job), enriched_item(job, "You'll need 5+ years")).as_dict()
    assert served["field"] == "description"
    assert served["evidence"] == "You\u2019ll need  5+ years"
    assert job["description"][served["start"] : served["end"]] == served["evidence"]
    assert served["context"] == "You\u2019ll need 5+ years of Python."


def test_an_excerpt_in_the_title_points_at_the_title() -> None:
    job = {"title": "Senior Data Engineer", "location_text": "Remote", "description": "Senior"}
    served = place(served_fields(job), enriched_item(job, "Senior Data")).as_dict()
    assert (served["field"], served["start"], served["end"]) == ("title", 0, 11)


def test_an_excerpt_in_the_location_line_points_at_the_location() -> None:
    job = {"title": "Engineer", "location_text": "Remote, EU", "description": "Work with us."}
    served = place(served_fields(job), enriched_item(job, "Remote")).as_dict()
    assert served["field"] == "location_text"
    assert holds(job, served)


def test_stale_offsets_fall_back_to_the_excerpt_found_in_the_served_text() -> None:
    job = {"title": "Engineer", "location_text": None, "description": "We use Airflow daily."}
    item = {"value": "airflow", "evidence": "Airflow", "start": 0, "end": 7}  # points at "Enginee"
    served = place(served_fields(job), item).as_dict()
    assert served["field"] == "description"
    assert job["description"][served["start"] : served["end"]] == "Airflow"


def test_an_excerpt_the_served_posting_no_longer_has_points_nowhere() -> None:
    job = {"title": "Engineer", "location_text": None, "description": "We use Airflow."}
    item = {"value": 5, "evidence": "5+ years", "start": 3, "end": 11}
    served = place(served_fields(job), item).as_dict()
    assert served == {
        "field": None, "start": None, "end": None, "evidence": "5+ years", "context": None,
    }  # fmt: skip
    assert not holds(job, served)


def test_the_reader_check_fails_on_a_wrong_span_a_wrong_field_or_no_field() -> None:
    job = {"title": "Engineer", "description": "We use Airflow."}
    good = {"field": "description", "start": 7, "end": 14, "evidence": "Airflow"}
    assert holds(job, good)
    assert not holds(job, {**good, "start": 6})
    assert not holds(job, {**good, "field": "title"})
    assert not holds(job, {**good, "field": "enrichment"})
    assert not holds(job, {**good, "end": 99})


def test_the_context_is_the_sentence_around_the_excerpt_and_bounded() -> None:
    text = "First sentence. You need 5+ years of SQL. Last one."
    at = text.index("5+ years")
    assert sentence(text, at, at + 8) == "You need 5+ years of SQL."
    long = "word " * 200 + "Airflow" + " word" * 200
    at = long.index("Airflow")
    context = sentence(long, at, at + 7)
    assert "Airflow" in context
    assert len(context) <= 2 * 240 + 7
