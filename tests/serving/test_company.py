"""Every published job names its employer: the posting's own company, else its board's
(sources.yaml, the listing's name, the token's words), with where it came from; a
board whose name changes republishes its postings; the legal entity is published and
shown where it differs."""

from __future__ import annotations

import httpx

from tests.serving.conftest import Seeder, start_web


def name_board(seed: Seeder, company: str | None, source: str | None) -> None:
    seed.sql(
        "UPDATE crawl.boards SET company = %s, company_source = %s WHERE id = %s",
        (company, source, seed.board),
    )


def published(seed: Seeder, posting: int) -> tuple[str | None, str | None]:
    job = seed.jobs()[posting]
    return job["company"], job["company_source"]


def test_a_board_s_configured_company_names_postings_that_state_none(seed: Seeder) -> None:
    name_board(seed, "Quiet Bank", "config")
    silent = seed.posting(company=None)
    blank = seed.posting(company="  ")
    seed.sync()
    assert published(seed, silent) == ("Quiet Bank", "config")
    assert published(seed, blank) == ("Quiet Bank", "config")


def test_the_posting_s_own_company_wins(seed: Seeder) -> None:
    name_board(seed, "Quiet Bank", "config")
    own = seed.posting(company="Quiet Bank Robotics GmbH")
    seed.sync()
    assert published(seed, own) == ("Quiet Bank Robotics GmbH", "posting")


def test_nobody_s_name_is_not_stated(seed: Seeder) -> None:
    posting = seed.posting(company=None)  # the seeded board has no company
    seed.sync()
    assert published(seed, posting) == (None, None)


def test_a_board_whose_company_changes_republishes_its_postings(seed: Seeder) -> None:
    name_board(seed, "Quiet Bank", "derived")
    silent = seed.postings(2, company=None)
    own = seed.posting(company="Acme")
    seed.sync()
    assert seed.sync().staged == 0  # nothing changed: nothing read

    name_board(seed, "Quiet Bank Holdings", "board")
    report = seed.sync()
    assert report.mode == "incremental"
    # Every posting of the board is read again; the one that names itself is unchanged.
    assert (report.staged, report.updated, report.unchanged) == (3, 2, 1)
    assert [published(seed, p) for p in silent] == [("Quiet Bank Holdings", "board")] * 2
    assert published(seed, own) == ("Acme", "posting")

    # The same name again moves no stamp: nothing is read.
    name_board(seed, "Quiet Bank Holdings", "board")
    assert seed.sync().staged == 0


def test_a_closed_posting_keeps_its_board_s_company(seed: Seeder) -> None:
    name_board(seed, "Quiet Bank", "config")
    posting, _still_open = seed.postings(2, company=None)
    seed.sync()
    seed.sql(
        "UPDATE core.postings SET status = 'expired', closed_at = now() WHERE id = %s", (posting,)
    )
    seed.sync()
    closed = seed.serving("SELECT company FROM serving.closed_jobs WHERE id = %s", (posting,))
    assert closed == [{"company": "Quiet Bank"}]


def test_the_legal_entity_is_published_and_a_change_republishes(seed: Seeder) -> None:
    posting = seed.posting(company=None, legal_entity="631 Example Corp_United States")
    seed.sync()
    assert seed.jobs()[posting]["legal_entity"] == "631 Example Corp_United States"
    stamp = seed.sql("SELECT publish_xid FROM core.postings WHERE id = %s", (posting,))
    seed.parse(posting, company=None, legal_entity="632 Example GmbH_Germany")
    assert seed.sql("SELECT publish_xid FROM core.postings WHERE id = %s", (posting,)) != stamp
    report = seed.sync()
    assert (report.staged, report.updated) == (1, 1)
    assert seed.jobs()[posting]["legal_entity"] == "632 Example GmbH_Germany"


def test_the_job_page_names_the_company_and_a_different_legal_entity(
    seed: Seeder, web_url: str
) -> None:
    name_board(seed, "Quiet Bank", "derived")
    derived = seed.posting(company=None, legal_entity="QB Holdings Ltd.")
    own = seed.posting(company="Acme", legal_entity="acme")  # the same name: not repeated
    unknown_board = Seeder(seed.dbs, source="other")
    unknown = unknown_board.posting(company=None)
    seed.sync()
    running = start_web(web_url)
    try:
        page = httpx.get(f"{running.url}/jobs/{derived}").text
        assert (
            '<a href="/companies/quiet-bank">Quiet Bank</a> <span class="resolved">(read from the job board'
            in page
        )
        assert '<dt>Legal entity</dt><dd class="legal-entity">QB Holdings Ltd.</dd>' in page
        assert "Company not stated" not in page
        page = httpx.get(f"{running.url}/jobs/{own}").text
        assert '<a href="/companies/acme">Acme</a></p>' in page  # no note: the posting states it
        assert "Legal entity" not in page
        page = httpx.get(f"{running.url}/jobs/{unknown}").text
        assert "Company not stated" in page
        api = httpx.get(f"{running.url}/api/jobs/{derived}").json()
        assert (api["company"], api["company_source"], api["legal_entity"]) == (
            "Quiet Bank",
            "derived",
            "QB Holdings Ltd.",
        )
    finally:
        running.stop()
