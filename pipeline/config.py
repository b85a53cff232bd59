"""Load and validate sources.yaml before anything runs.

Every problem is reported as `FILE:LINE: key.path: problem`, all problems at
once, so an operator can fix a broken file in one pass. Validation is pydantic
with `extra="forbid"`: a misspelt key is an error, never silently ignored.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pipeline.errors import ConfigError
from pipeline.platform_names import ATS_PLATFORMS, HTML_PLATFORMS, PLATFORMS
from pipeline.settings import interpolation_environment, load_settings
from pipeline.workday_sites import OWN_HOST_TOKEN, TOKEN_FORMS, workday_site

_SOURCE_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
_BOARD_TOKEN = re.compile(r"^[A-Za-z0-9@][A-Za-z0-9._/@-]{0,199}$")
# A Workday board on its tenant's own host, e.g. nvidia.wd5/NVIDIAExternalCareerSite (on
# nvidia.wd5.myworkdayjobs.com); boards on a data center's shared host are spelt by
# pipeline.workday_sites.SHARED_HOST_TOKEN.
WORKDAY_TOKEN = OWN_HOST_TOKEN
# Platforms whose board token names more than one thing (a host and a site or company):
# its shape, and an example for the error message.
COMPOSITE_TOKENS: dict[str, tuple[re.Pattern[str], str]] = {
    "oracle": (re.compile(r"^[A-Za-z0-9.-]+/[A-Za-z0-9_-]+$"), "eeho.fa.us2.oraclecloud.com/CX_1"),
    # The legacy career site, a Career Site Builder site, or both (the XML feed first).
    "successfactors": (
        re.compile(
            r"^(?:[A-Za-z0-9.-]+\.[A-Za-z]{2,}/[A-Za-z0-9_.-]+(?:@[A-Za-z0-9.-]+\.[A-Za-z]{2,})?"
            r"|(?!career\d*\.(?:successfactors|sapsf)\.)[A-Za-z0-9.-]+\.[A-Za-z]{2,})$"
        ),
        "career2.successfactors.eu/CompanyId, jobs.example.com or "
        "career2.successfactors.eu/CompanyId@jobs.example.com",
    ),
    # The feed's companyEId, the career site's slug, or both (the feed first).
    "jobvite": (
        re.compile(
            r"^(?:[A-Za-z0-9][A-Za-z0-9_-]*(?:@[A-Za-z0-9][A-Za-z0-9_-]*)?|@[A-Za-z0-9][A-Za-z0-9_-]*)$"
        ),
        "qZA9VfwF, @careersiteslug or qZA9VfwF@careersiteslug",
    ),
}
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

# Hard caps of one backfill, shared by the CLI and the backfill DAGs' Param schemas
# (here because DAG files may import nothing of ours but this module at parse time).
BACKFILL_MAX_LIMIT = 50_000  # postings per backfill
BACKFILL_MAX_REQUESTS = 5_000  # HTTP requests (or API attempts) one backfill may make


def param_bounds(minimum: int, maximum: int | None = None) -> dict[str, list[dict[str, int]]]:
    """JSON-schema bounds for a DAG Param that Airflow refuses instead of clamping.

    Airflow's trigger form gives its number field the schema's top-level `minimum` and
    `maximum`, and that field silently clamps a typed value into them when it loses
    focus (100000 becomes 50000 and the run starts). Under `allOf` the form does not
    see them, so it keeps what was typed, while Param validation (the REST API the form
    submits to, `airflow dags test`, `Param.resolve`) still refuses a value outside
    them: `100000 is greater than the maximum of 50000`.
    """
    bounds = {"minimum": minimum} | ({} if maximum is None else {"maximum": maximum})
    return {"allOf": [bounds]}


def _http_url(value: str) -> str:
    if not re.match(r"^https?://[^\s/]+", value):
        raise ValueError(f"must be an http:// or https:// URL, got {value!r}")
    return value.rstrip("/")


HttpUrl = Annotated[str, AfterValidator(_http_url)]


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Pacing(StrictModel):
    """A token bucket per host: `rate_per_s` sustained, `burst` at once."""

    rate_per_s: Annotated[float, Field(gt=0, le=1000)]
    burst: Annotated[int, Field(ge=1, le=1000)] = 1


class Validation(StrictModel):
    """What a fetched body must satisfy to count as a real response."""

    expect_status: tuple[int, ...] = (200,)
    content_types: tuple[str, ...] = ()  # substrings; empty = accept any
    min_bytes: Annotated[int, Field(ge=0)] = 2
    allowed_hosts: tuple[str, ...] = ()  # empty = the source's own hosts
    allowed_paths: tuple[str, ...] = ()  # path prefixes the final URL must start with; empty = any
    required_json_keys: tuple[str, ...] = ()
    required_selectors: tuple[str, ...] = ()
    # Regular expressions that recognize this site's own block / challenge / login
    # pages, on top of the built-in Cloudflare and captcha markers.
    block_markers: tuple[str, ...] = ()

    @field_validator("block_markers")
    @classmethod
    def _compiles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from None
        return value


class Board(StrictModel):
    token: str
    # The employer's display name, when the platform does not state it per posting
    # and the token does not read as one (pipeline.normalize.company: the order).
    company: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    enabled: bool = True

    @model_validator(mode="before")
    @classmethod
    def _legacy_name(cls, value: Any) -> Any:
        """`name:` is the old spelling of `company:` (it named the brand the parse
        phase used to write into postings); one board may not say both."""
        if isinstance(value, dict) and "name" in value:
            if "company" in value:
                raise ValueError("give company (name is its old spelling), not both")
            value = {("company" if k == "name" else k): v for k, v in value.items()}
        return value

    @field_validator("company")
    @classmethod
    def _company_text(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("company must name the employer (got only spaces)")
        return value.strip() if value is not None else None

    @field_validator("token")
    @classmethod
    def _token_shape(cls, value: str) -> str:
        if not _BOARD_TOKEN.match(value):
            raise ValueError(
                "board token must be letters, digits, '.', '_', '-', '/' or '@' (no spaces or URLs)"
            )
        return value


_PRESETS = ("@hourly", "@daily", "@weekly", "@monthly", "@quarterly", "@yearly")
_CRON_FIELD = re.compile(
    r"^(\*|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(/[0-9]+)?(,(\*|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(/[0-9]+)?)*$"
)
_CRON_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))


def _check_schedule(value: str) -> str:
    """A cron preset or a 5-field cron expression whose numbers are in range."""
    if value.startswith("@"):
        if value not in _PRESETS:
            raise ValueError(f"schedule {value!r}: presets are {', '.join(_PRESETS)}")
        return value
    fields = value.split()
    if len(fields) != 5 or not all(_CRON_FIELD.match(f) for f in fields):
        raise ValueError(f"schedule {value!r} is not a cron expression (5 fields) or a preset")
    for text, (low, high) in zip(fields, _CRON_RANGES, strict=True):
        for number in re.findall(r"(?<![/0-9])[0-9]+", text):
            if not low <= int(number) <= high:
                raise ValueError(f"schedule {value!r}: {number} is outside {low}-{high}")
    return value


class SourceBase(StrictModel):
    platform: str
    display_name: str | None = None
    enabled: bool = True
    # The source DAG's Airflow schedule (cron or preset); unset: manual trigger only.
    # Either way the DAG is created paused.
    schedule: str | None = None
    parser: str | None = None  # default: the platform's (or site's) own parser
    transport: Literal["http", "browser"] = "http"
    pacing: Pacing | None = None
    validation: Validation = Validation()
    robots: Literal["obey", "ignore"] | None = None
    # Postings whose title matches one of these (case-insensitive regexes) are kept
    # with status `filtered`, never deleted.
    exclude_titles: tuple[str, ...] = ()

    @field_validator("schedule")
    @classmethod
    def _valid_schedule(cls, value: str | None) -> str | None:
        return None if value is None else _check_schedule(value.strip())

    @field_validator("exclude_titles")
    @classmethod
    def _valid_patterns(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from None
        return patterns


class AtsSource(SourceBase):
    platform: Literal[ATS_PLATFORMS]  # type: ignore[valid-type]
    api_base: HttpUrl | None = None
    boards: tuple[Board, ...] = ()

    @field_validator("boards", mode="before")
    @classmethod
    def _board_shorthand(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"token": item} if isinstance(item, str) else item for item in value]
        return value

    @field_validator("boards")
    @classmethod
    def _composite_tokens(cls, value: tuple[Board, ...], info: ValidationInfo) -> tuple[Board, ...]:
        shape = COMPOSITE_TOKENS.get(str(info.data.get("platform")))
        for index, board in enumerate(value):
            if shape is not None and not shape[0].match(board.token):
                raise ValueError(
                    f"boards[{index}]: {info.data['platform']} token {board.token!r} must look "
                    f"like {shape[1]}"
                )
        return value


class SmartRecruitersSource(AtsSource):
    """SmartRecruiters' listing names no posting page: the crawler builds it on the
    platform's separate public host."""

    platform: Literal["smartrecruiters"]
    # Where posting pages live (real: https://jobs.smartrecruiters.com); unset means
    # the real default. The sandbox sources point it at the sandbox.
    public_base: HttpUrl | None = None


class WorkdaySource(AtsSource):
    """Workday's own keys: board tokens name tenant, data center and site."""

    platform: Literal["workday"]
    # Also fetch the detail of postings whose title matches this regular expression
    # (details are otherwise fetched only for rows that hide their locations).
    title_filter: str | None = None

    @field_validator("boards")
    @classmethod
    def _workday_tokens(cls, value: tuple[Board, ...]) -> tuple[Board, ...]:
        for index, board in enumerate(value):
            if workday_site(board.token) is None:
                raise ValueError(
                    f"boards[{index}]: Workday token {board.token!r} must look like {TOKEN_FORMS}"
                )
        return value

    @field_validator("title_filter")
    @classmethod
    def _title_filter(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from None
        return value


class Scope(StrictModel):
    """One listing endpoint of a site, e.g. a search or category; `{page}` is the page number."""

    key: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")]
    path: str

    @field_validator("path")
    @classmethod
    def _has_page(cls, value: str) -> str:
        if "{page}" not in value:
            raise ValueError("path must contain {page} where the page number goes")
        return value


class Pagination(StrictModel):
    first_page: Annotated[int, Field(ge=0)] = 1
    max_pages: Annotated[int, Field(ge=1, le=10000)] = 50


def _known_fields(value: dict[str, str]) -> dict[str, str]:
    from parsers.html_site import FIELDS

    unknown = sorted(set(value) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown field {', '.join(unknown)} (allowed: {', '.join(FIELDS)})")
    return value


SiteFields = Annotated[dict[str, str], AfterValidator(_known_fields)]


class Listing(StrictModel):
    item: str
    link: str
    id_pattern: str
    fields: SiteFields = {}
    next_page: str | None = None
    total: str | None = None
    drop_query: bool = False  # strip tracking parameters from posting URLs

    @field_validator("id_pattern")
    @classmethod
    def _one_group(cls, value: str) -> str:
        try:
            compiled = re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from None
        if compiled.groups != 1:
            raise ValueError("must have exactly one (group) capturing the posting id")
        return value


class Detail(StrictModel):
    fields: SiteFields = {}
    jsonld: bool = True


class HtmlSiteSource(SourceBase):
    platform: Literal["html_site"]
    base_url: HttpUrl
    scopes: tuple[Scope, ...]
    pagination: Pagination = Pagination()
    listing: Listing
    detail: Detail = Detail()


SourceConfig = AtsSource | HtmlSiteSource


class SourcesFile(StrictModel):
    version: Literal[1] = 1
    sources: dict[str, Any]


@dataclass(frozen=True)
class Sources:
    """The validated file: sources in file order, plus where they came from."""

    path: Path
    sources: Mapping[str, SourceConfig]
    lines: Mapping[tuple[Any, ...], int] = field(default_factory=dict, repr=False)

    def where(self, *path: Any) -> str:
        """`FILE:LINE: key.path` for messages about a key found valid in shape but
        wrong in context (e.g. a parser that does not exist)."""
        probe = tuple(path)
        while probe and probe not in self.lines:
            probe = probe[:-1]
        line = self.lines.get(probe)
        return (
            f"{self.path}:{line}: {format_path(tuple(path))}"
            if line
            else f"{self.path}: {format_path(tuple(path))}"
        )

    def enabled(self) -> list[tuple[str, SourceConfig]]:
        return [(name, src) for name, src in self.sources.items() if src.enabled]

    def get(self, name: str) -> SourceConfig:
        try:
            return self.sources[name]
        except KeyError:
            known = ", ".join(self.sources) or "none"
            raise ConfigError([f"{self.path}: no source named {name!r} (known: {known})"]) from None


def parser_ref(name: str, source: SourceConfig) -> str:
    """The parser a source names, else its own (an HTML site) or its platform's."""
    if source.parser:
        return source.parser
    return name if isinstance(source, HtmlSiteSource) else source.platform


# A source's lane as an Airflow queue: what `make up EXECUTOR=celery`'s workers consume
# (pipeline.airflow.workers); here so the DAG file, which imports only this module, can
# name it. The LocalExecutor ignores queues.
ATS_QUEUE, WORKDAY_QUEUE, BROWSER_QUEUE = "ats", "workday", "browser"
LANE_QUEUES = (ATS_QUEUE, WORKDAY_QUEUE, BROWSER_QUEUE)


def source_queue(platform: str, transport: str = "http", boards: Iterable[str] = ()) -> str:
    """The Airflow queue (lane) of a source's tasks: Chromium sources, Workday (by data
    centre when its board tokens allow, workday_queue), the rest."""
    if transport == "browser":
        return BROWSER_QUEUE
    if platform == "workday":
        return workday_queue(boards)
    return ATS_QUEUE


def workday_queue(tokens: Iterable[str]) -> str:
    """`workday-wd5` when every board token names one data centre, `workday` otherwise
    (boards in several, or none). The DAG is built from sources.yaml: a board added to
    the database only (`jobharbor boards import`) in another data centre runs in this
    lane too, still paced as its own data centre's host (pipeline.crawl)."""
    centres = {site.dc for site in map(workday_site, tokens) if site is not None}
    return f"{WORKDAY_QUEUE}-{centres.pop()}" if len(centres) == 1 else WORKDAY_QUEUE


def source_lane(source: SourceConfig) -> str:
    """A configured source's queue, from its enabled boards."""
    boards = getattr(source, "boards", ())
    return source_queue(source.platform, source.transport, [b.token for b in boards if b.enabled])


def lanes_in_use(sources: Iterable[SourceConfig]) -> tuple[str, ...]:
    """The three lanes always, then each Workday data centre's lane a source has."""
    extra = {source_lane(s) for s in sources} - set(LANE_QUEUES)
    return (*LANE_QUEUES, *sorted(extra))


# Each lane's own Airflow pool (`jobharbor airflow setup` creates them): a slow lane
# fills its pool, never another's. The shared `jobharbor` pool stays for the tasks on
# Airflow's default queue (docs/operations.md, "The pools").
def lane_pool(queue: str) -> str:
    return f"jobharbor_{queue}"


def config_hash(source: SourceConfig) -> str:
    blob = json.dumps(source.model_dump(mode="json"), sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


# ---------------------------------------------------------------- YAML with line numbers


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys instead of keeping the last one."""


# libyaml's parser when PyYAML was built with it: eight times faster than the pure-Python
# one (every App reads sources.yaml), with the same nodes, marks and safe constructors.
# A file it refuses is parsed again in Python, whose messages say more ("expected ','
# or ']', but got '<stream end>'" where libyaml says "did not find expected ...").
class _FastUniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The same loader on libyaml's parser."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"duplicate key {key!r} (first defined on line {seen[key]})",
                key_node.start_mark,
            )
        seen[key] = key_node.start_mark.line + 1
    return loader.construct_mapping(node)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_FastUniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping
)


def _compose_and_load(text: str) -> tuple[yaml.Node | None, Any]:
    """The document's node tree (for line numbers) and its data, from one parse."""
    try:
        return _parse(text, _FastUniqueKeyLoader)
    except yaml.YAMLError:
        return _parse(text, _UniqueKeyLoader)  # raises again, with Python's message


def _parse(text: str, loader_class: type) -> tuple[yaml.Node | None, Any]:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


def _line_index(
    node: yaml.Node | None, path: tuple[Any, ...] = ()
) -> Iterator[tuple[tuple[Any, ...], int]]:
    if node is None:
        return
    yield path, node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            yield (*path, key), key_node.start_mark.line + 1
            for sub_path, line in _line_index(value_node, (*path, key)):
                if sub_path != (*path, key):
                    yield sub_path, line
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield from _line_index(item, (*path, index))


def format_path(path: tuple[Any, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


class _Problems:
    def __init__(self, file: Path, lines: dict[tuple[Any, ...], int]) -> None:
        self.file = file
        self.lines = lines
        self._found: list[tuple[int, str]] = []
        self._paths: set[tuple[Any, ...]] = set()

    @property
    def items(self) -> list[str]:
        """Problems in file order, the way an operator reads and fixes them."""
        return [message for _, message in sorted(self._found, key=lambda item: item[0])]

    def add(self, path: tuple[Any, ...], problem: str) -> None:
        # One problem per key: the first is the cause, later ones are its echoes.
        if path in self._paths:
            return
        self._paths.add(path)
        probe = path
        while probe and probe not in self.lines:
            probe = probe[:-1]
        line = self.lines.get(probe)
        where = f"{self.file}:{line}" if line else str(self.file)
        self._found.append((line or 0, f"{where}: {format_path(path)}: {problem}"))


# ---------------------------------------------------------------- interpolation


def _interpolate(
    value: Any, path: tuple[Any, ...], env: Mapping[str, str], problems: _Problems
) -> Any:
    if isinstance(value, dict):
        return {k: _interpolate(v, (*path, k), env, problems) for k, v in value.items()}
    if isinstance(value, list):
        return [_interpolate(v, (*path, i), env, problems) for i, v in enumerate(value)]
    if not isinstance(value, str) or "${" not in value:
        return value

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in env and env[name] != "":
            return env[name]
        if default is not None:
            return default
        problems.add(path, f"environment variable {name} is not set (and no ${{{name}:-default}})")
        return match.group(0)

    return _ENV_REF.sub(replace, value)


# ---------------------------------------------------------------- pydantic errors -> lines


def _describe(error: Mapping[str, Any], model: type[BaseModel], where: tuple[Any, ...]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        owner = _model_at(model, where)
        allowed = ", ".join(sorted(owner.model_fields)) if owner else ""
        return f"unknown key (allowed: {allowed})" if allowed else "unknown key"
    if kind == "missing":
        return "required key is missing"
    if kind == "literal_error":
        expected = error.get("ctx", {}).get("expected", "")
        return f"must be one of {expected}, got {error.get('input')!r}"
    message = str(error["msg"])
    return message.removeprefix("Value error, ")


def _model_at(model: type[BaseModel], where: tuple[Any, ...]) -> type[BaseModel] | None:
    """The pydantic model that owns the key at `where` (for listing allowed keys)."""
    current: Any = model
    for part in where[:-1]:
        if isinstance(part, int):
            continue
        field = current.model_fields.get(part) if hasattr(current, "model_fields") else None
        if field is None:
            return None
        current = _model_in(field.annotation)
        if current is None:
            return None
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_in(arg)
        if found:
            return found
    return None


def _validate(model: type[BaseModel], data: Any, base: tuple[Any, ...], problems: _Problems) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            loc = tuple(
                p for p in error["loc"] if not (isinstance(p, str) and p.startswith("function-"))
            )
            problems.add((*base, *loc), _describe(error, model, loc))
        return None


# ---------------------------------------------------------------- loading


def _validate_source(name: Any, raw: Any, problems: _Problems) -> SourceConfig | None:
    path = ("sources", name)
    if not isinstance(name, str) or not _SOURCE_NAME.match(name):
        problems.add(
            path,
            "source name must be lowercase letters, digits, '-' or '_' and start with a letter",
        )
        return None
    if not isinstance(raw, dict):
        problems.add(path, "must be a mapping of settings (platform, boards, ...)")
        return None
    platform = raw.get("platform")
    if platform is None:
        problems.add(
            (*path, "platform"), f"required key is missing (one of: {', '.join(PLATFORMS)})"
        )
        return None
    if platform not in PLATFORMS:
        problems.add(
            (*path, "platform"), f"unknown platform {platform!r} (known: {', '.join(PLATFORMS)})"
        )
        return None
    model: type[SourceBase] = (
        HtmlSiteSource
        if platform in HTML_PLATFORMS
        else WorkdaySource
        if platform == "workday"
        else SmartRecruitersSource
        if platform == "smartrecruiters"
        else AtsSource
    )
    source = _validate(model, raw, path, problems)
    if isinstance(source, AtsSource):
        _check_duplicate_boards(source, path, problems)
    return source


def _check_duplicate_boards(source: AtsSource, path: tuple[Any, ...], problems: _Problems) -> None:
    first: dict[str, int] = {}
    for index, board in enumerate(source.boards):
        if board.token in first:
            problems.add(
                (*path, "boards", index),
                f"duplicate board {board.token!r} (also boards[{first[board.token]}])",
            )
        first.setdefault(board.token, index)


def load_sources(path: Path | str, env: Mapping[str, str] | None = None) -> Sources:
    """Parse, interpolate `${VAR}` / `${VAR:-default}`, and validate a sources file."""
    file = Path(path)
    env = interpolation_environment() if env is None else env
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError([f"{file}: file not found"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([f"{file}: cannot read: {exc}"]) from None
    try:
        node, data = _compose_and_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{file}:{mark.line + 1}" if mark else str(file)
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError([f"{where}: invalid YAML: {problem}"]) from None
    problems = _Problems(file, dict(_line_index(node)))
    if not isinstance(data, dict):
        raise ConfigError([f"{file}: the file must be a mapping with a 'sources' key"])
    data = _interpolate(data, (), env, problems)
    top = _validate(SourcesFile, data, (), problems)
    sources: dict[str, SourceConfig] = {}
    if top is not None:
        if not top.sources:
            problems.add(("sources",), "no sources defined")
        for name, raw in top.sources.items():
            source = _validate_source(name, raw, problems)
            if source is not None:
                sources[name] = source
    if problems.items:
        raise ConfigError(problems.items)
    return Sources(path=file, sources=sources, lines=problems.lines)


def configured_sources_file() -> Path:
    """The sources file the settings name (JOBHARBOR_SOURCES; sources.yaml by default):
    what the DAG files load at import time."""
    return load_settings().sources_file
