"""Sync sources.yaml into ref.sources and crawl.boards (idempotent).

Boards removed from the file are disabled, never deleted: their postings and
history stay, and re-adding the board re-enables it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Protocol

from pipeline.config import SourceConfig, Sources, config_hash, parser_ref
from pipeline.crawl.platforms import BoardSpec, board_specs, host_of, platform_of
from pipeline.db.connect import Database
from pipeline.db.rows import RecordedFormat, fetch_all, fetch_value
from pipeline.normalize.company import company_from_token

_UPSERT_SOURCE = """
INSERT INTO ref.sources (id, platform, display_name, parser, enabled, config, config_hash)
VALUES (%(id)s, %(platform)s, %(display_name)s, %(parser)s, %(enabled)s, %(config)s::jsonb, %(hash)s)
ON CONFLICT (id) DO UPDATE SET
    platform = excluded.platform, display_name = excluded.display_name, parser = excluded.parser,
    enabled = excluded.enabled, config = excluded.config, config_hash = excluded.config_hash,
    updated_at = now()
WHERE ref.sources.config_hash IS DISTINCT FROM excluded.config_hash
   OR ref.sources.enabled IS DISTINCT FROM excluded.enabled
RETURNING (xmax = 0) AS inserted
"""

# The board's company (pipeline.normalize.company): sources.yaml's always wins; a name
# the listing envelope gave (`board`, recorded by the parse phase) outranks one read
# from the token, so only `config` replaces it.
_COMPANY = """CASE WHEN excluded.company_source = 'config'
                   OR crawl.boards.company_source IS DISTINCT FROM 'board'
              THEN excluded.{0} ELSE crawl.boards.{0} END"""

_UPSERT_BOARD = f"""
INSERT INTO crawl.boards (source_id, board_key, url, lane, host, enabled, origin, company,
                          company_source, format)
VALUES (%(source)s, %(key)s, %(url)s, %(lane)s, %(host)s, true, 'config', %(company)s,
        %(company_source)s, %(format)s)
ON CONFLICT (source_id, board_key) DO UPDATE SET
    url = excluded.url, lane = excluded.lane, host = excluded.host, enabled = true,
    company = {_COMPANY.format("company")}, company_source = {_COMPANY.format("company_source")},
    format = excluded.format, updated_at = now()
WHERE (crawl.boards.url, crawl.boards.lane, crawl.boards.host, crawl.boards.enabled,
       crawl.boards.company, crawl.boards.company_source, crawl.boards.format)
      IS DISTINCT FROM (excluded.url, excluded.lane, excluded.host, true,
                        {_COMPANY.format("company")}, {_COMPANY.format("company_source")},
                        excluded.format)
RETURNING (xmax = 0) AS inserted
"""

_RECORDED_FORMATS = """
SELECT board_key, format FROM crawl.boards WHERE source_id = %(source)s AND format IS NOT NULL
"""

_DISABLE_REMOVED = """
UPDATE crawl.boards SET enabled = false, updated_at = now()
WHERE source_id = %(source)s AND origin = 'config' AND enabled AND NOT (board_key = ANY(%(keys)s))
"""


class CatalogContext(Protocol):
    """What the sync needs (the composition root, pipeline.app.App, has it): crawl sits
    below the root and takes its parts instead of importing it."""

    @property
    def db(self) -> Database: ...

    @property
    def sources(self) -> Sources: ...


@dataclass(frozen=True)
class CatalogReport:
    sources_changed: int
    boards_added: int
    boards_updated: int
    boards_disabled: int


def board_company(platform: str, spec: BoardSpec) -> dict[str, str | None]:
    """The board's configured company, else one read from its token, else none."""
    if spec.company:
        return {"company": spec.company, "company_source": "config"}
    derived = company_from_token(platform, spec.key)
    return {"company": derived, "company_source": "derived" if derived else None}


def at_recorded_format(source: SourceConfig, spec: BoardSpec, recorded: str | None) -> BoardSpec:
    """The board at the format it was last read in (a fallback or an import chose it),
    so a catalog sync never sends it back to a format it no longer serves; the best
    format when none is recorded, or when the token no longer leads to the recorded one."""
    if recorded is None or recorded == spec.format:
        return spec
    platform = platform_of(source)
    url = platform.format_url(recorded, platform.api_base_for(source), spec.key)
    if url is None:
        return spec
    return replace(
        spec, url=url, lane=platform.lane(source, url), host=host_of(url), format=recorded
    )


def sync_catalog(app: CatalogContext) -> CatalogReport:
    sources_changed = added = updated = disabled = 0
    with app.db.connect() as conn, conn.transaction():
        for name, source in app.sources.sources.items():
            row = conn.execute(
                _UPSERT_SOURCE,
                {
                    "id": name,
                    "platform": source.platform,
                    "display_name": source.display_name or name,
                    "parser": parser_ref(name, source),
                    "enabled": source.enabled,
                    "config": json.dumps(source.model_dump(mode="json")),
                    "hash": config_hash(source),
                },
            ).fetchone()
            sources_changed += row is not None
            if not source.enabled:
                continue
            recorded = {
                r.board_key: r.format
                for r in fetch_all(conn, RecordedFormat, _RECORDED_FORMATS, {"source": name})
            }
            specs = [
                at_recorded_format(source, s, recorded.get(s.key)) for s in board_specs(source)
            ]
            for spec in specs:
                inserted = fetch_value(
                    conn,
                    _UPSERT_BOARD,
                    {
                        "source": name,
                        "key": spec.key,
                        "url": spec.url,
                        "lane": spec.lane,
                        "host": spec.host,
                        "format": spec.format,
                        **board_company(source.platform, spec),
                    },
                )
                if inserted is not None:  # no row: the board was already as configured
                    added += bool(inserted)
                    updated += not inserted
            disabled += conn.execute(
                _DISABLE_REMOVED, {"source": name, "keys": [s.key for s in specs]}
            ).rowcount
    return CatalogReport(sources_changed, added, updated, disabled)
