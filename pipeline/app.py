"""The composition root: settings -> databases, raw store, parsers, fetcher.

Everything real is built here and only here, so the CLI, the DAGs, the demo and
the tests all run the same wiring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import parsers
from parsers.html_site import HtmlSiteSpec, register_sites
from parsers.registry import Parser, ParserRegistry, UnknownParserError
from pipeline.config import HtmlSiteSource, Sources, load_sources, parser_ref
from pipeline.crawl.http.fetcher import Fetcher
from pipeline.crawl.pacing import Pacer
from pipeline.crawl.platforms import PLATFORMS
from pipeline.db.connect import Database
from pipeline.db.embedded import DATABASES, EmbeddedCluster, ensure_cluster
from pipeline.errors import ConfigError
from pipeline.rawstore import RawArchive, RawStore, open_raw_store
from pipeline.settings import Settings, interpolation_environment, load_settings


@dataclass(frozen=True)
class DatabaseUrls:
    authoritative: str
    serving: str
    airflow: str | None
    cluster: EmbeddedCluster | None


SERVING_CLUSTER_DIR = "pg-serving"  # under the data dir: the separate serving cluster
SERVING_DATABASE = "jobharbor_serving"


def _separate_serving(settings: Settings) -> str | None:
    """The serving database of a second embedded cluster (`serving_cluster=separate`,
    no serving URL): started (or reused) under data_dir/pg-serving."""
    if settings.serving_database_url is not None or settings.serving_cluster != "separate":
        return None
    cluster = ensure_cluster(settings.data_dir / SERVING_CLUSTER_DIR, databases=(SERVING_DATABASE,))
    return cluster.url(SERVING_DATABASE)


@dataclass(frozen=True)
class ServingDatabase:
    url: str
    # The private cluster this checkout runs it on (None: a server it was given).
    cluster_dir: Path | None


def resolve_serving(settings: Settings) -> ServingDatabase:
    """The serving database alone, for the web app: it never starts the pipeline's
    cluster when serving lives elsewhere (the web role needs nothing there)."""
    if settings.serving_database_url is not None:
        return ServingDatabase(settings.serving_database_url.get_secret_value(), None)
    if url := _separate_serving(settings):
        return ServingDatabase(url, settings.data_dir / SERVING_CLUSTER_DIR)
    urls = resolve_databases(settings)
    return ServingDatabase(urls.serving, urls.cluster.root if urls.cluster else None)


def resolve_databases(settings: Settings) -> DatabaseUrls:
    """Explicit URLs win; otherwise start (or reuse) the embedded cluster, and a second
    one for serving when the settings ask for it."""
    explicit = settings.serving_database_url
    serving = explicit.get_secret_value() if explicit else _separate_serving(settings)
    if settings.database_url is not None:
        url = settings.database_url.get_secret_value()
        return DatabaseUrls(url, serving or url, None, None)
    # The serving database is created where serving lives, not beside the pipeline's.
    databases = tuple(name for name in DATABASES if serving is None or name != SERVING_DATABASE)
    cluster = ensure_cluster(
        settings.data_dir / "pg", port=settings.embedded_pg_port, databases=databases
    )
    return DatabaseUrls(
        cluster.url("jobharbor"),
        serving or cluster.url(SERVING_DATABASE),
        cluster.url("airflow"),
        cluster,
    )


def site_spec(name: str, source: HtmlSiteSource) -> HtmlSiteSpec:
    return HtmlSiteSpec(
        name=name,
        item=source.listing.item,
        link=source.listing.link,
        id_pattern=source.listing.id_pattern,
        listing_fields=dict(source.listing.fields),
        detail_fields=dict(source.detail.fields),
        next_page=source.listing.next_page,
        total=source.listing.total,
        use_jsonld=source.detail.jsonld,
        drop_query=source.listing.drop_query,
    )


def build_registry(sources: Sources) -> ParserRegistry:
    """Built-in parsers plus one per configured HTML site; checks every enabled
    source has a crawler and a parser, naming the key to fix when not."""
    specs = [
        site_spec(name, src)
        for name, src in sources.sources.items()
        if isinstance(src, HtmlSiteSource)
    ]
    problems: list[str] = []
    try:
        registry = register_sites(parsers.REGISTRY, specs)
    except Exception as exc:  # a site named like a built-in parser
        raise ConfigError([f"{sources.path}: {exc}"]) from None
    for name, source in sources.enabled():
        if source.platform not in PLATFORMS and not isinstance(source, HtmlSiteSource):
            supported = ", ".join(sorted(PLATFORMS))
            problems.append(
                f"{sources.where('sources', name, 'platform')}: platform {source.platform!r} "
                f"has no crawler in this version (supported: {supported}); set enabled: false"
            )
            continue
        try:
            registry.get(parser_ref(name, source))
        except UnknownParserError as exc:
            problems.append(f"{sources.where('sources', name, 'parser')}: {exc}")
    if problems:
        raise ConfigError(problems)
    return registry


@dataclass
class App:
    settings: Settings
    sources: Sources
    registry: ParserRegistry
    urls: DatabaseUrls
    _closers: list[object] = field(default_factory=list)

    @classmethod
    def create(
        cls, settings: Settings | None = None, sources_file: Path | str | None = None
    ) -> App:
        settings = settings or load_settings()
        sources = load_sources(
            sources_file or settings.sources_file, env=interpolation_environment(settings)
        )
        registry = build_registry(sources)
        return cls(settings, sources, registry, resolve_databases(settings))

    @cached_property
    def db(self) -> Database:
        return Database(self.urls.authoritative)

    @cached_property
    def serving_db(self) -> Database:
        return Database(self.urls.serving, application_name="jobharbor-sync")

    @cached_property
    def raw_store(self) -> RawStore:
        return open_raw_store(self.settings)

    def archive(self) -> RawArchive:
        return RawArchive(self.db, self.raw_store)

    def fetcher(self) -> Fetcher:
        """A paced fetcher: its requests spend each host's shared budget (crawl.hosts)."""
        pacer = Pacer(self.db, max_wait_s=self.settings.pacing_max_wait_s)
        return Fetcher(self.settings, pacer=pacer, owns_pacer=True)

    def parser_for(self, source_name: str) -> Parser:
        return self.registry.get(parser_ref(source_name, self.sources.get(source_name)))

    def source_names(self, only: str | None = None) -> list[str]:
        if only:
            self.sources.get(only)  # raises a clear error for an unknown name
            return [only]
        return [name for name, _ in self.sources.enabled()]
