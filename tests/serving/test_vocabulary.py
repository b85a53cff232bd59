"""One vocabulary per field, on the real databases: the sync publishes the canonical
employment types beside the stated string and one work mode by its precedence; the
facets list the vocabulary only; `remote=` is the alias of `work_mode=` (same postings,
same counts); a migration after the last sync makes the next one a full reconcile."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from serving_sync import search
from serving_sync.search import UNKNOWN, parse_filters, parse_request
from tests.serving.conftest import Seeder

# The demo's spellings (issue: 16 spellings of a few values) with their counts' shape.
DEMO_SPELLINGS = (
    "Full-time", "FULL_TIME", "Full Time", "Full-Time", "Full time", "full",
    "fulltime_permanent", "FullTime", "Salaried, full-time", "Regular", "Intern",
    "INTERN", "Internship", "intern", "permanent, full-time", "Part-time", "Contract",
    "Temporary", None,
)  # fmt: skip


def test_the_sync_publishes_the_vocabulary_and_keeps_the_stated_string(seed: Seeder) -> None:
    ids = {raw: seed.posting(title=f"Role {i}", employment_type=raw)
           for i, raw in enumerate(DEMO_SPELLINGS)}  # fmt: skip
    seed.sync()
    jobs = seed.jobs()
    assert jobs[ids["Salaried, full-time"]]["employment_type"] == ["full_time"]
    assert jobs[ids["Salaried, full-time"]]["employment_type_raw"] == "Salaried, full-time"
    assert jobs[ids["Regular"]]["employment_type"] == ["full_time"]  # the seeder's greenhouse
    assert jobs[ids["Intern"]]["employment_type"] == ["internship"]
    assert jobs[ids["Intern"]]["job_type"] == "intern"
    assert jobs[ids[None]]["employment_type"] == []
    assert jobs[ids[None]]["employment_type_raw"] is None
    with seed.dbs.serving.connect() as conn:
        found = search.counts(conn, search.Filters(), ("employment_type",), budget_ms=5000)
    group = found.groups["employment_type"]
    assert group is not None
    values = dict(group.buckets)
    assert len([v for v in values if v != UNKNOWN]) <= 8
    assert set(values) <= {*search.EMPLOYMENT_TYPE_VALUES}
    assert values["full_time"] == 11
    assert values["internship"] == 4
    assert values[UNKNOWN] == 1


def test_an_intern_title_settles_a_full_time_stated_type(seed: Seeder) -> None:
    job = seed.posting(
        title="Data Analyst (intern)", employment_type="FULL_TIME", job_type="intern"
    )
    seed.sync()
    row = seed.jobs()[job]
    assert (row["employment_type"], row["employment_type_raw"], row["job_type"], row["seniority"]) == (
        ["internship"], "FULL_TIME", "intern", "intern",
    )  # fmt: skip


def _location(remote: str) -> str:
    return json.dumps({"countries": ["DE"], "offices": [], "remote": remote})


def test_the_work_mode_is_the_field_else_the_location(seed: Seeder) -> None:
    field = seed.posting(remote="yes", location=_location("hybrid"))
    location = seed.posting(remote="unknown", location=_location("hybrid"))
    neither = seed.posting(remote="unknown", location=_location("unknown"))
    seed.sync()
    jobs = seed.jobs()
    assert (jobs[field]["work_mode"], jobs[field]["work_mode_source"]) == ("remote", "field")
    assert (jobs[location]["work_mode"], jobs[location]["work_mode_source"]) == (
        "hybrid",
        "location",
    )
    assert (jobs[neither]["work_mode"], jobs[neither]["work_mode_source"]) == (UNKNOWN, None)
    assert "remote" not in jobs[field]  # one column


ALIASES = (("yes", "remote"), ("hybrid", "hybrid"), ("unknown", "unknown"), ("no", "onsite"))


@pytest.mark.parametrize(("old", "mode"), ALIASES)
def test_remote_is_an_alias_of_work_mode_with_the_same_counts(seeded, web_conn, old, mode) -> None:
    by_alias, by_mode = parse_filters({"remote": [old]}), parse_filters({"work_mode": [mode]})
    assert by_alias == by_mode
    groups = (*search.FACET_GROUPS, "month")
    alias_counts = search.counts(web_conn, by_alias, groups, budget_ms=5000)
    mode_counts = search.counts(web_conn, by_mode, groups, budget_ms=5000)
    assert alias_counts.total == mode_counts.total == sum(r["work_mode"] == mode for r in seeded)
    assert alias_counts.groups == mode_counts.groups
    pages = [
        [i["id"] for i in search.search(web_conn, parse_request(raw)).items]
        for raw in ({"remote": [old], "q": ["engineer"]}, {"work_mode": [mode], "q": ["engineer"]})
    ]
    assert pages[0] == pages[1]


def test_one_work_mode_facet_whose_counts_are_the_rows(seeded, web_conn) -> None:
    assert "remote" not in search.PAGE_FACET_GROUPS
    assert search.PAGE_FACET_GROUPS.count("work_mode") == 1
    found = search.counts(web_conn, search.Filters(), search.PAGE_FACET_GROUPS, budget_ms=5000)
    group = found.groups["work_mode"]
    assert group is not None
    assert dict(group.buckets) == dict(Counter(r["work_mode"] for r in seeded))
    assert group.denominator == len(seeded)


def test_a_stated_spelling_filters_as_its_canonical_value(seeded, web_conn) -> None:
    old = parse_request({"employment_type": ["Full-time"]})
    new = parse_request({"employment_type": ["full_time"]})
    assert old == new
    ids = {i["id"] for i in search.search(web_conn, new).items}
    wanted = [r["id"] for r in seeded if "full_time" in r["employment_type"]]
    assert ids
    assert ids <= set(wanted)


def test_a_migration_after_the_last_sync_makes_the_next_one_full(seed: Seeder) -> None:
    seed.posting()
    seed.sync()
    assert seed.sync().mode == "incremental"
    # As if migration 16 had just run (after the last applied sync).
    seed.serving("UPDATE serving.schema_versions SET applied_at = now() WHERE version = 15")
    report = seed.sync()
    assert (report.mode, report.mode_reason) == (
        "full",
        "the serving schema was migrated since the last applied sync",
    )
    assert seed.sync().mode == "incremental"
