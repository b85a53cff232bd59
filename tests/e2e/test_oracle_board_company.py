"""Oracle Recruiting Cloud rows name no employer (neither the search row nor the
requisition detail has a company field): over the sandbox through the real pipeline,
each published posting takes its board's company in the project's order
(pipeline/normalize/company.py): sources.yaml's `company:`, else the pod's name."""

from __future__ import annotations

from typing import Any

from pipeline.app import App
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from pipeline.phases.sync import sync_serving
from sandbox.server import RunningSandbox
from tests.apps import MakeApp, query, sandbox_ats_source


def oracle_app(make_app: MakeApp, sandbox: RunningSandbox) -> App:
    boards = [
        "{token: harbor.fa.us2.oraclecloud.com/CX_1, company: Harbor Freight Group}",
        "delta.fa.em2.oraclecloud.com/CX_2001",
    ]
    return make_app(sandbox_ats_source("oracle", "oracle", sandbox.url, boards))


def published(app: App) -> list[dict[str, Any]]:
    with app.serving_db.connect() as conn:
        return list(conn.execute("SELECT id, company, company_source FROM serving.jobs"))


def test_oracle_postings_without_a_company_take_their_boards(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app = oracle_app(make_app, sandbox)
    for report in (
        discover(app, "oracle", force=True),
        fetch_details(app, "oracle"),
        parse_source(app, "oracle"),
        sync_serving(app),
    ):
        assert report.status == "succeeded", report

    parsed = query(
        app,
        """SELECT p.id, b.board_key, r.company FROM core.postings AS p
           JOIN crawl.boards AS b ON b.id = p.board_id
           JOIN core.parse_results AS r ON r.posting_id = p.id AND r.is_current""",
    )
    assert parsed
    assert {r["company"] for r in parsed} == {None}  # the rows say nobody
    board_of = {r["id"]: r["board_key"].split(".")[0] for r in parsed}
    jobs = published(app)
    assert sorted(j["id"] for j in jobs) == sorted(board_of)
    by_board = {(board_of[j["id"]], j["company"], j["company_source"]) for j in jobs}
    assert by_board == {
        ("harbor", "Harbor Freight Group", "config"),  # the operator's word
        ("delta", "Delta", "derived"),  # the pod's first label, as a name
    }
