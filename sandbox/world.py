"""The sandbox's deterministic world: companies, boards and their postings.

Everything derives from (seed, board, revision), so every run serves the same
bytes, and a board "changes between runs" only when someone advances its
revision. Each revision step removes one posting, adds one and edits one, which
is what tests and the demo need to drive lifecycle changes.
"""

from __future__ import annotations

import hashlib
import html
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from sandbox import prose

EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

TITLES = (
    "Software Engineer",
    "Senior Backend Engineer",
    "Data Analyst",
    "Product Designer",
    "Site Reliability Engineer",
    "Account Executive",
    "Machine Learning Engineer",
    "Customer Success Manager",
    "Frontend Engineer",
    "Engineering Manager",
    "Software Engineering Intern",
    "New Grad Software Engineer",
    "Technical Writer",
    "Security Engineer",
    "Data Engineer",
    "Recruiter",
)
VIETNAMESE_TITLES = (
    "Kỹ sư phần mềm",
    "Lập trình viên Java",
    "Chuyên viên phân tích dữ liệu",
    "Nhân viên kế toán",
    "Trưởng nhóm kinh doanh",
    "Thực tập sinh Marketing",
    "Kỹ sư kiểm thử phần mềm",
    "Chuyên viên tuyển dụng",
)
LOCATIONS = (
    "San Francisco, CA",
    "New York, NY",
    "Remote - US",
    "London, United Kingdom",
    "Berlin, Germany",
    "Toronto, Ontario, Canada",
    "Austin, TX",
    "Hybrid - Amsterdam",
    "Paris, France",
    "Singapore",
)
ENTRY_LEVEL_WORDS = ("Intern", "New Grad", "Thực tập sinh")
VIETNAMESE_LOCATIONS = ("Hà Nội", "Hồ Chí Minh", "Đà Nẵng", "Hà Nội & 2 nơi khác", "Cần Thơ")
DEPARTMENTS = ("Engineering", "Data", "Design", "Sales", "Customer Success", "People", "Security")
SKILLS = (
    "Python",
    "PostgreSQL",
    "Kubernetes",
    "TypeScript",
    "React",
    "Go",
    "AWS",
    "Terraform",
    "SQL",
    "Airflow",
    "Kafka",
    "Rust",
)
COMPANY_WORDS = ("Harbor", "North", "Blue", "Quiet", "Iron", "Bright", "Cedar", "Delta", "Lumen")
COMPANY_SUFFIXES = ("Labs", "Systems", "Robotics", "Health", "Analytics", "Works", "Bank")


@dataclass(frozen=True)
class Pay:
    low: int
    high: int
    currency: str
    unit: str  # schema.org unitText: YEAR | MONTH


@dataclass(frozen=True)
class Job:
    job_id: int
    title: str
    location: str
    department: str
    skills: tuple[str, ...]
    posted_at: datetime
    facts: prose.Facts  # what the description states (sandbox.prose)
    edits: int = 0  # how many times this posting's content changed
    salary: tuple[int, int] | None = None  # yearly, in `currency` (VND: see vn_salary)
    vietnamese: bool = False
    currency: str = "USD"

    def pay(self) -> Pay | None:
        """The salary as structured fields state it: yearly in the job's currency; the
        Vietnamese sites' monthly dong (the "N triệu" they show, see vn_salary)."""
        if self.salary is None:
            return None
        low, high = self.salary
        if self.vietnamese:
            return Pay(low * 100, high * 100, "VND", "MONTH")
        return Pay(low, high, self.currency, "YEAR")

    def money_range(self) -> str:
        """ "$120,000 - $150,000": the yearly range as free-text pay fields write it."""
        low, high = self.salary or (0, 0)
        return f"{money(low, self.currency)} - {money(high, self.currency)}"

    def description_blocks(self, company: str) -> list[prose.Block]:
        return prose.describe(
            self.facts,
            company=company,
            title=self.title,
            department=self.department,
            skills=self.skills,
            salary_range=salary_words(self, self.facts.language),
            edits=self.edits,
        )

    def description_paragraphs(self, company: str) -> list[str]:
        """The description as text paragraphs (list items as "- " lines)."""
        return prose.as_text(self.description_blocks(company))

    def description_html(self, company: str, escape: Callable[[str], str] = html.escape) -> str:
        """The description as rich-text HTML: headings, paragraphs and bullet lists."""
        return prose.as_html(self.description_blocks(company), escape)


@dataclass(frozen=True)
class Board:
    platform: str
    token: str
    company: str
    jobs: tuple[Job, ...]
    revision: int


def _rng(*parts: object) -> random.Random:
    return random.Random(":".join(str(p) for p in parts))


def random_company(seed: int, token: str) -> str:
    """A made-up name for a board whose token names no one (a job site's category)."""
    rng = _rng(seed, "company", token)
    return f"{rng.choice(COMPANY_WORDS)} {rng.choice(COMPANY_SUFFIXES)}"


# The ATS boards whose tokens are ids, not names (a Jobvite companyEId): their owners'
# names, which sandbox/sources.yaml gives as each board's `company:` (a test checks).
NAMED_BOARDS = {"qZA9VfwF": "Harbor Freight Analytics", "q0oaVfwd": "Cedar Point Health"}
# Job-site scopes and the like: categories, never an employer.
_UNNAMED_PLATFORMS = frozenset({"js", "paged"})
_CAREERS_WORDS = frozenset({"career", "careers", "jobs"})


def company_name(seed: int, platform: str, token: str) -> str:
    """The employer of an ATS board: the words its token is made of, as real boards
    are named for their owner (quiet-bank -> Quiet Bank, DeltaWorks -> Delta Works,
    harbor.wd5 -> Harbor); a named id's owner; otherwise (job sites) a made-up name."""
    if token in NAMED_BOARDS:
        return NAMED_BOARDS[token]
    if platform in _UNNAMED_PLATFORMS or platform.startswith("site:"):
        return random_company(seed, token)
    return token_words(token) or random_company(seed, token)


def token_words(token: str) -> str | None:
    """The title-cased words of a token's first label: `careers-harborlabs` ->
    "Harborlabs", `QuietBank` -> "Quiet Bank", `cedarlabs01` -> "Cedarlabs"."""
    label = re.split(r"[./#]", token, maxsplit=1)[0]
    words = [
        hump
        for part in re.split(r"[-_]+", re.sub(r"\d+$", "", label))
        if part.lower() not in _CAREERS_WORDS
        for hump in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", part)
    ]
    return " ".join(w if w.isupper() else w.capitalize() for w in words) or None


def _new_job(seed: int, platform: str, token: str, ordinal: int, vietnamese: bool) -> Job:
    rng = _rng(seed, platform, token, "job", ordinal)
    titles = VIETNAMESE_TITLES if vietnamese else TITLES
    locations = VIETNAMESE_LOCATIONS if vietnamese else LOCATIONS
    low = rng.randrange(60, 180) * 1000
    title = rng.choice(titles)
    location = rng.choice(locations)
    department = rng.choice(DEPARTMENTS)
    skills = tuple(rng.sample(SKILLS, 3))
    posted_at = EPOCH + timedelta(days=ordinal % 40, hours=rng.randrange(0, 23))
    salary = (low, low + rng.randrange(10, 60) * 1000) if rng.random() < 0.5 else None
    # What the text says is drawn from a stream of its own, so the fields above stay
    # what they always were for the same seed.
    text = _rng(seed, platform, token, "text", ordinal)
    currency = "VND" if vietnamese else CURRENCIES.get(COUNTRIES.get(location, ""), "USD")
    return Job(
        job_id=_job_id(platform, token, ordinal),
        title=title,
        location=location,
        department=department,
        skills=skills,
        posted_at=posted_at,
        salary=_in_currency(salary, currency),
        vietnamese=vietnamese,
        currency=currency,
        facts=prose.draw_facts(
            text,
            _language(text, vietnamese, location),
            location,
            entry_level=any(w in title for w in ENTRY_LEVEL_WORDS),
        ),
    )


def _language(rng: random.Random, vietnamese: bool, location: str) -> prose.Language:
    """Vietnamese boards write Vietnamese; about half the Berlin and Paris postings are in
    German or French (the rest in English, as international teams there write)."""
    if vietnamese:
        return "vi"
    local = {"Berlin, Germany": "de", "Paris, France": "fr"}.get(location)
    return local if local and rng.random() < 0.5 else "en"  # type: ignore[return-value]


# The yearly figures are drawn as US dollars; a posting in another country pays in its
# currency, at about what the same role pays there (not a conversion: Berlin pays less).
CURRENCIES = {
    "United States": "USD",
    "United Kingdom": "GBP",
    "Germany": "EUR",
    "France": "EUR",
    "Netherlands": "EUR",
    "Canada": "CAD",
    "Singapore": "SGD",
}
_PAY_LEVEL = {"USD": 1.0, "GBP": 0.55, "EUR": 0.6, "CAD": 0.9, "SGD": 0.95, "VND": 1.0}


def _in_currency(salary: tuple[int, int] | None, currency: str) -> tuple[int, int] | None:
    if salary is None:
        return None
    level = _PAY_LEVEL[currency]
    return (int(round(salary[0] * level, -3)), int(round(salary[1] * level, -3)))


_SYMBOL = {"USD": "$", "EUR": "€", "GBP": "£"}


def money(amount: int, currency: str) -> str:
    """$120,000, €65,000, £48,000; CAD 90,000 (a code where a symbol would be read as $)."""
    symbol = _SYMBOL.get(currency)
    return f"{symbol}{amount:,}" if symbol else f"{currency} {amount:,}"


def salary_words(job: Job, language: prose.Language) -> tuple[str, str] | None:
    """The salary as the description states it: yearly amounts, or for Vietnamese postings
    the monthly millions of dong (triệu) that the job sites show (see vn_salary)."""
    if job.salary is None:
        return None
    low, high = job.salary
    if job.vietnamese:
        return f"{low // 10000} triệu", f"{high // 10000} triệu/tháng"
    if language in ("de", "fr") and job.currency == "EUR":
        sep = "." if language == "de" else "\u202f"
        return tuple(f"{a:,}".replace(",", sep) + " €" for a in (low, high))  # type: ignore[return-value]
    return money(low, job.currency), money(high, job.currency)


# One company's job on two of its boards (two platforms: a migration, or two brands):
# the same title, place, pay and text under each board's own id.
CROSS_POSTED = {("lever", "harbor-labs"): ("greenhouse", "harbor-labs")}


def same_job(original: Job, slot: Job) -> Job:
    """`original`'s content under `slot`'s id and date."""
    return replace(original, job_id=slot.job_id, posted_at=slot.posted_at, edits=0)


def _job_id(platform: str, token: str, ordinal: int) -> int:
    # Stable across processes (unlike hash()): a digest of the board plus the ordinal.
    digest = hashlib.sha256(f"{platform}/{token}".encode()).digest()
    return 4_000_000_000 + int.from_bytes(digest[:5], "big") * 1000 + ordinal


# Boards larger than the seed makes them: a Workday board over three pages of 20, so the
# count probe's multi-page case (a first page that is not the whole listing) exists.
BOARD_SIZES = {("workday", "atlas.wd1"): 45}


def base_size(seed: int, platform: str, token: str) -> int:
    if (platform, token) in BOARD_SIZES:
        return BOARD_SIZES[(platform, token)]
    return _rng(seed, platform, token, "size").randrange(4, 16)


@lru_cache(maxsize=4096)
def build_board(
    seed: int, platform: str, token: str, revision: int, vietnamese: bool = False
) -> Board:
    """The board at `revision`: revision 0 plus `revision` deterministic change steps."""
    size = base_size(seed, platform, token)
    jobs = [_new_job(seed, platform, token, i, vietnamese) for i in range(size)]
    if (platform, token) in CROSS_POSTED:
        other = CROSS_POSTED[(platform, token)]
        jobs[0] = same_job(build_board(seed, *other, 0, vietnamese).jobs[0], jobs[0])
    if size > 4 and _rng(seed, platform, token, "repost").random() < 0.35:
        # Reposted: the first job again under a new id and a later date, the old one
        # still listed (boards do this to float a job back up the list).
        jobs[-1] = same_job(jobs[0], jobs[-1])
    for step in range(1, revision + 1):
        if len(jobs) > 1:
            jobs.pop(step % len(jobs))  # one posting closes
        if jobs:
            index = (step * 3) % len(jobs)
            jobs[index] = replace(jobs[index], edits=jobs[index].edits + 1)  # one changes
        jobs.append(_new_job(seed, platform, token, size + step - 1, vietnamese))  # one opens
    return Board(platform, token, company_name(seed, platform, token), tuple(jobs), revision)


# ---------------------------------------------------------------- derived facts (additive)
# Formats that show more than one office per posting, or ids that are not numbers,
# derive them here so every format agrees on the same job.

COUNTRIES = {
    "San Francisco, CA": "United States",
    "New York, NY": "United States",
    "Remote - US": "United States",
    "London, United Kingdom": "United Kingdom",
    "Berlin, Germany": "Germany",
    "Toronto, Ontario, Canada": "Canada",
    "Austin, TX": "United States",
    "Hybrid - Amsterdam": "Netherlands",
    "Paris, France": "France",
    "Singapore": "Singapore",
}


COUNTRY_CODES = {
    "United States": "US",
    "United Kingdom": "GB",
    "Germany": "DE",
    "Canada": "CA",
    "Netherlands": "NL",
    "France": "FR",
    "Singapore": "SG",
}


def job_locations(job: Job) -> tuple[str, ...]:
    """The job's offices: its location, plus one or two more for every third job."""
    pool = VIETNAMESE_LOCATIONS[:3] if job.vietnamese else LOCATIONS
    extra = 0 if job.job_id % 3 else 1 + job.job_id % 2
    others = [loc for loc in pool if loc != job.location and "&" not in loc]
    start = job.job_id % max(1, len(others))
    chosen = [others[(start + i) % len(others)] for i in range(min(extra, len(others)))]
    return (job.location, *chosen)


def job_uuid(job: Job) -> str:
    """A stable UUID-shaped id (Lever, Ashby, Teamtailor feeds use UUIDs)."""
    digest = hashlib.sha256(f"job:{job.job_id}".encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-a{digest[17:20]}-{digest[20:32]}"


def country_of(location: str) -> str | None:
    return COUNTRIES.get(location)
