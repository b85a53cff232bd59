"""A test-only adapter and parser for the sandbox's paged API (sandbox/formats/paged_api):
a platform without validators whose first page states the total, like Workday. The
engine's count probe is generic; this is the smallest adapter that switches it on."""

from __future__ import annotations

import json
from collections.abc import Mapping

from parsers.registry import Parser
from parsers.types import Issue, ParseOutcome, Posting, Quality, RawDocument
from pipeline.crawl.http.fetcher import FetchRequest
from pipeline.crawl.platforms.base import Platform
from pipeline.db.rows import BoardRow

PAGE_SIZE = 5
# Shaped like a Workday token (tenant.wdN/Site), since the adapter stands in for Workday.
TOKEN = "probe.wd1/Jobs"


class PagedPlatform(Platform):
    name = "workday"  # stands in for a validator-less platform in sources.yaml
    conditional = False
    count_probe = True
    max_pages = 50

    def listing_url(self, api_base: str, token: str) -> str:
        return f"{api_base}/{token}/jobs"

    def _page(self, board: BoardRow, offset: int) -> FetchRequest:
        body = json.dumps({"limit": PAGE_SIZE, "offset": offset}).encode()
        return FetchRequest(
            board.url,
            headers={"Content-Type": "application/json"},
            method="POST",
            body=body,
            tag=board,
        )

    def first_request(self, board: BoardRow, headers: Mapping[str, str]) -> FetchRequest:
        return self._page(board, 0)

    def next_request(
        self,
        board: BoardRow,
        previous: FetchRequest,
        outcome: ParseOutcome,
        pages_read: int,
    ) -> FetchRequest | None:
        offset = pages_read * PAGE_SIZE
        if outcome.total is None or offset >= outcome.total or pages_read >= self.max_pages:
            return None
        return self._page(board, offset)


def parse_paged(doc: RawDocument) -> ParseOutcome:
    try:
        data = json.loads(doc.body)
    except ValueError:
        return ParseOutcome.rejected(Issue("not_json", "body is not JSON"))
    postings = tuple(
        Posting(
            external_id=item["id"],
            url=item["url"],
            title=item["title"],
            location_text=item["locationsText"],
            payload=item,
        )
        for item in data["jobPostings"]
    )
    return ParseOutcome(Quality.ACCEPTED, postings, total=data["total"])


PAGED_PARSER = Parser("paged_test", "1", parse_paged)


def paged_source(name: str, url: str, boards: list[str]) -> str:
    return f"""
  {name}:
    platform: workday
    parser: paged_test
    api_base: {url}/paged
    pacing: {{rate_per_s: 200, burst: 200}}
    boards: [{", ".join(boards)}]
"""
