"""The sandbox world reads like real postings: descriptions of real length and
structure, four languages, pay in the country's currency, stated experience and
education that the rules (the sandbox model's truth) read back, reposts and one job
on two sources."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from pipeline.enrich.catalog import load_catalog
from pipeline.enrich.rules import baseline
from pipeline.enrich.text import normalize
from sandbox import prose, world
from sandbox.server import DEFAULT_SEED

PLATFORMS = ("greenhouse", "lever", "ashby", "workday", "recruitee", "breezy")


def _jobs(boards: int = 8) -> list[tuple[world.Board, world.Job]]:
    """Jobs of many made-up boards: the generator's whole range, not one board's luck."""
    found = []
    for platform in PLATFORMS:
        for n in range(boards):
            board = world.build_board(DEFAULT_SEED, platform, f"board-{n}", 0)
            found += [(board, job) for job in board.jobs]
    for n in range(boards):
        board = world.build_board(DEFAULT_SEED, "site:vieclam", f"scope-{n}", 0, True)
        found += [(board, job) for job in board.jobs]
    return found


JOBS = _jobs()
# Three times the boards: enough German and French postings (a few percent of all) for
# the share of long ones in each language to show.
WIDE = _jobs(boards=24)
LONG_BYTES = 5000


def _text(board: world.Board, job: world.Job) -> str:
    return "\n".join([job.title, job.location, *job.description_paragraphs(board.company)])


def _size(board: world.Board, job: world.Job) -> int:
    return len(_text(board, job).encode())


def _short_form(job: world.Job) -> world.Job:
    """The same posting without its long sections."""
    return replace(job, facts=replace(job.facts, long=None))


def test_descriptions_are_one_and_a_half_to_eight_kilobytes() -> None:
    sizes = sorted(len(_text(b, j).encode()) for b, j in JOBS)
    assert sizes[0] >= 1500, sizes[:5]
    assert sizes[-1] <= 8000, sizes[-5:]
    assert sizes[-1] - sizes[0] > 1000, "lengths vary as real ones do"


def test_no_description_passes_eight_kilobytes_as_text_or_as_html() -> None:
    for board, job in WIDE:
        assert 1500 <= _size(board, job) <= 8000, (job.job_id, _size(board, job))
        markup = job.description_html(board.company)
        assert len(markup) <= 8192, (job.job_id, len(markup))


def test_most_descriptions_are_short_and_a_tenth_or_more_run_past_five_kilobytes() -> None:
    sizes = sorted(_size(b, j) for b, j in WIDE)
    long = sum(size > LONG_BYTES for size in sizes)
    assert 0.10 <= long / len(sizes) <= 0.20, long / len(sizes)
    assert sizes[len(sizes) // 2] < 3500, "the typical posting stays short"
    assert sizes[int(len(sizes) * 0.8)] < 3500, "long ones are a tail, not the rule"
    assert sizes[-1] > 6500, "the tail reaches well past 6 KB"


def test_each_language_has_long_postings() -> None:
    long = Counter(j.facts.language for b, j in WIDE if _size(b, j) > LONG_BYTES)
    assert set(long) == {"en", "vi", "de", "fr"}, long


def test_a_long_posting_is_long_because_of_its_drawn_sections() -> None:
    for board, job in WIDE:
        if job.facts.long is None:
            assert _size(board, job) < LONG_BYTES, job.job_id
        else:
            assert _size(board, job) > LONG_BYTES, job.job_id
            assert _size(board, job) > _size(board, _short_form(job)) + 1500


def _rules_read_what_is_stated(jobs: list, stated: dict[str, int]) -> int:
    """Assert the rules baseline reads back each job's stated experience and education
    (English and Vietnamese, the languages it reads); count them in `stated`. Returns how
    many jobs were checked."""
    catalog = load_catalog()
    checked = 0
    for board, job in jobs:
        facts = job.facts
        if facts.language not in ("en", "vi"):
            continue
        answer = baseline(normalize(_text(board, job)), catalog)
        checked += 1
        if facts.experience is not None:
            stated["experience"] += 1
            assert answer["experience_min"] is not None, _text(board, job)
            assert answer["experience_min"]["value"] == facts.experience[0]
        if facts.education is not None:
            stated["education"] += 1
            assert answer["education"] is not None, _text(board, job)
    return checked


def test_long_postings_still_state_experience_and_education_as_the_rules_read_them() -> None:
    stated = {"experience": 0, "education": 0}
    _rules_read_what_is_stated([(b, j) for b, j in JOBS if j.facts.long is not None], stated)
    assert stated["experience"] >= 20
    assert stated["education"] >= 10


def test_the_long_sections_add_nothing_the_rules_read() -> None:
    # No skill, years, degree, work mode or employment type in them: enrichment reads a
    # long posting exactly as the same posting without its long sections.
    catalog = load_catalog()
    checked = 0
    for board, job in JOBS:
        if job.facts.long is None:
            continue
        long = baseline(normalize(_text(board, job)), catalog)
        short = baseline(normalize(_text(board, _short_form(job))), catalog)
        assert long == short, _text(board, job)
        checked += 1
    assert checked >= 40


def test_long_postings_keep_headings_lists_and_escaping() -> None:
    board, job = next((b, j) for b, j in JOBS if j.facts.long and j.facts.language == "en")
    markup = job.description_html(board.company)
    assert markup.count("<h3>") >= 8
    assert markup.count("<ul>") == markup.count("</ul>") >= 4
    hostile = replace(job, title="<script>x</script>").description_html(board.company)
    assert "<script" not in hostile, "text is escaped"


def test_the_long_form_is_drawn_last_so_no_other_choice_moves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn = []
    for n in range(300):
        language = ("en", "vi", "de", "fr")[n % 4]
        drawn.append(prose.draw_facts(random.Random(f"text:{n}"), language, "Berlin, Germany"))
    monkeypatch.setattr(prose, "LONG_SHARE", 0.0)
    for n, facts in enumerate(drawn):
        again = prose.draw_facts(random.Random(f"text:{n}"), facts.language, "Berlin, Germany")
        assert again == replace(facts, long=None)
    assert sum(f.long is not None for f in drawn) >= 20


def test_descriptions_have_headings_paragraphs_and_bullet_lists() -> None:
    board, job = JOBS[0]
    markup = job.description_html(board.company)
    assert markup.startswith(f"<p>{board.company} is hiring")
    assert markup.count("<h3>") >= 5
    assert "<ul><li>" in markup
    assert "</li></ul>" in markup
    hostile = replace(job, title="<script>x</script>").description_html(board.company)
    assert "&lt;script&gt;" in hostile
    assert "<script" not in hostile, "text is escaped"


def test_four_languages_with_german_and_french_only_where_they_are_spoken() -> None:
    languages = Counter(j.facts.language for _, j in JOBS)
    assert set(languages) == {"en", "vi", "de", "fr"}
    assert languages["en"] > languages["de"] + languages["fr"]
    for _, job in JOBS:
        if job.facts.language == "de":
            assert job.location == "Berlin, Germany"
        if job.facts.language == "fr":
            assert job.location == "Paris, France"
        assert (job.facts.language == "vi") == job.vietnamese


@pytest.mark.parametrize(
    ("currency", "low", "high"),
    [("USD", 60_000, 240_000), ("EUR", 35_000, 145_000), ("GBP", 30_000, 135_000),
     ("CAD", 50_000, 220_000), ("SGD", 55_000, 230_000)],
)  # fmt: skip
def test_pay_is_in_the_country_s_currency_at_a_plausible_level(
    currency: str, low: int, high: int
) -> None:
    paid = [j for _, j in JOBS if j.salary and j.currency == currency]
    assert paid, f"no posting pays in {currency}"
    for job in paid:
        assert world.CURRENCIES[world.COUNTRIES[job.location]] == currency
        assert low <= job.salary[0] < job.salary[1] <= high, (job.location, job.salary)


def test_vietnamese_pay_is_monthly_dong() -> None:
    pay = next(j.pay() for _, j in JOBS if j.vietnamese and j.salary)
    assert pay is not None
    assert (pay.currency, pay.unit) == ("VND", "MONTH")
    assert 5_000_000 <= pay.low < pay.high <= 30_000_000


def test_the_description_states_the_pay_the_structured_fields_give() -> None:
    for board, job in JOBS:
        if job.salary and job.facts.language == "en":
            low, high = (world.money(a, job.currency) for a in job.salary)
            text = _text(board, job)
            assert low in text, text[-400:]
            assert high in text, text[-400:]


def test_stated_experience_and_education_are_what_the_rules_read() -> None:
    stated = {"experience": 0, "education": 0}
    # Every fourth job: the rules take ~20 ms a posting, and a quarter covers each form.
    checked = _rules_read_what_is_stated(JOBS[::4], stated)
    assert stated["experience"] >= 0.5 * checked
    assert stated["education"] >= 0.3 * checked


def test_entry_level_jobs_ask_for_no_years_of_experience() -> None:
    entry = [j for _, j in JOBS if any(w in j.title for w in world.ENTRY_LEVEL_WORDS)]
    assert entry
    assert all(j.facts.experience in (None, (0, None)) for j in entry)
    others = [j for _, j in JOBS if j not in entry]
    assert all(j.facts.experience != (0, None) for j in others), "a manager needs years"


def test_the_intro_uses_the_article_the_title_needs() -> None:
    texts = [_text(b, j) for b, j in JOBS if j.facts.language == "en"]
    assert any(" is hiring an Engineering Manager " in t for t in texts)
    assert not any(" is hiring a Engineering" in t or " is hiring a Account" in t for t in texts)


def test_a_repost_and_a_job_on_two_sources_carry_the_same_content() -> None:
    reposted = [
        b for b, j in JOBS if j is b.jobs[-1] and j.title == b.jobs[0].title and len(b.jobs) > 4
    ]
    assert reposted, "some boards list a job twice"
    board = reposted[0]
    first, again = board.jobs[0], board.jobs[-1]
    assert first.job_id != again.job_id
    assert first.description_paragraphs(board.company) == again.description_paragraphs(
        board.company
    )
    greenhouse = world.build_board(DEFAULT_SEED, "greenhouse", "harbor-labs", 0).jobs[0]
    lever = world.build_board(DEFAULT_SEED, "lever", "harbor-labs", 0).jobs[0]
    assert (lever.title, lever.location, lever.salary) == (
        greenhouse.title,
        greenhouse.location,
        greenhouse.salary,
    )
    assert lever.job_id != greenhouse.job_id
