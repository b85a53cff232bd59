"""The sandbox's employers are the ones the pipeline names: a board's company in the
sandbox world (what its descriptions say: "Quiet Bank is hiring...") is the one
sandbox/sources.yaml configures or the pipeline reads from the board's token."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import AtsSource, load_sources
from pipeline.normalize.company import company_from_token
from sandbox import world
from sandbox.server import DEFAULT_SEED

SANDBOX_SOURCES = Path(__file__).resolve().parents[2] / "sandbox" / "sources.yaml"


def _boards() -> list[tuple[str, str, str | None]]:
    sources = load_sources(SANDBOX_SOURCES, env={})
    return [
        (source.platform, board.token, board.company)
        for source in sources.sources.values()
        if isinstance(source, AtsSource)
        for board in source.boards
    ]


def _served_company(platform: str, token: str) -> str:
    """The company the sandbox serves for a sources.yaml board. Its routes name some
    boards by a part of the token: Workday's tenant.wdN, Oracle's host; SuccessFactors
    serves a host and takes the company id as a query argument."""
    if platform == "successfactors":
        company_id = token.split("/", 1)[1]
        named = world.token_words(company_id)
        assert named is not None
        return named
    served = token.split("/", 1)[0] if platform in ("workday", "oracle") else token
    return world.build_board(DEFAULT_SEED, platform, served, 0).company


BOARDS = _boards()


@pytest.mark.parametrize(("platform", "token", "configured"), BOARDS, ids=[b[1] for b in BOARDS])
def test_each_sandbox_board_is_named_as_the_pipeline_names_it(
    platform: str, token: str, configured: str | None
) -> None:
    named = configured or company_from_token(platform, token)
    assert named is not None, f"{platform} board {token!r} names no company"
    assert named == _served_company(platform, token)


def test_opaque_boards_are_configured_and_readable_ones_are_not() -> None:
    # A `company:` is for tokens that name no one; a readable token names its owner.
    for platform, token, configured in BOARDS:
        assert (configured is not None) == (company_from_token(platform, token) is None), token


def test_a_board_s_descriptions_say_its_company() -> None:
    board = world.build_board(DEFAULT_SEED, "greenhouse", "quiet-bank", 0)
    assert board.company == "Quiet Bank"
    assert board.jobs[0].description_paragraphs(board.company)[0].startswith("Quiet Bank ")
