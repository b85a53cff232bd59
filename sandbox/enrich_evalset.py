"""Write cases.jsonl: the project-made part of the labelled set (deterministic).

    python -m sandbox.enrich_evalset

It lives beside the sandbox because it draws its texts from the sandbox's world
(nothing under pipeline/ may import the sandbox).

Stratified by source (eight English ATS sources, three Vietnamese job sites) and
language; a `traps` subset holds words that look like skills and are not (Go the
verb, Java coffee, C as a grade, R&D, Spark joy, "excel at").
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

from pipeline.enrich.text import normalize
from sandbox import world

OUT = Path(__file__).resolve().parent.parent / "pipeline" / "enrich" / "evalset" / "cases.jsonl"
EN_SOURCES = (
    "greenhouse",
    "lever",
    "ashby",
    "smartrecruiters",
    "workable",
    "workday",
    "recruitee",
    "teamtailor",
)
VI_SOURCES = ("vieclam", "itviec", "topcv")
PER_EN_SOURCE, PER_VI_SOURCE, TRAPS_EN, TRAPS_VI = 13, 16, 12, 8

EN_SKILLS = [
    ("python", "Python"),
    ("java", "Java"),
    ("go", "Go"),
    ("go", "Golang"),
    ("cpp", "C++"),
    ("csharp", "C#"),
    ("dotnet", ".NET"),
    ("nodejs", "Node.js"),
    ("typescript", "TypeScript"),
    ("javascript", "JavaScript"),
    ("react", "React"),
    ("vue", "Vue.js"),
    ("angular", "Angular"),
    ("postgresql", "PostgreSQL"),
    ("mysql", "MySQL"),
    ("mongodb", "MongoDB"),
    ("redis", "Redis"),
    ("kafka", "Kafka"),
    ("airflow", "Airflow"),
    ("spark", "Apache Spark"),
    ("snowflake", "Snowflake"),
    ("dbt", "dbt"),
    ("aws", "AWS"),
    ("gcp", "GCP"),
    ("azure", "Azure"),
    ("docker", "Docker"),
    ("kubernetes", "Kubernetes"),
    ("terraform", "Terraform"),
    ("ansible", "Ansible"),
    ("linux", "Linux"),
    ("git", "Git"),
    ("ci_cd", "CI/CD"),
    ("graphql", "GraphQL"),
    ("rest_api", "REST APIs"),
    ("grpc", "gRPC"),
    ("django", "Django"),
    ("fastapi", "FastAPI"),
    ("spring_boot", "Spring Boot"),
    ("rails", "Ruby on Rails"),
    ("php", "PHP"),
    ("laravel", "Laravel"),
    ("rust", "Rust"),
    ("scala", "Scala"),
    ("kotlin", "Kotlin"),
    ("swift", "Swift"),
    ("flutter", "Flutter"),
    ("ios", "iOS"),
    ("android", "Android"),
    ("sql", "SQL"),
    ("tableau", "Tableau"),
    ("power_bi", "Power BI"),
    ("looker", "Looker"),
    ("excel", "Excel"),
    ("figma", "Figma"),
    ("salesforce", "Salesforce"),
    ("hubspot", "HubSpot"),
    ("seo", "SEO"),
    ("google_analytics", "Google Analytics"),
    ("pytorch", "PyTorch"),
    ("tensorflow", "TensorFlow"),
    ("scikit_learn", "scikit-learn"),
    ("nlp", "NLP"),
    ("selenium", "Selenium"),
    ("cypress", "Cypress"),
    ("jest", "Jest"),
    ("jira", "Jira"),
    ("scrum", "Scrum"),
    ("c", "C"),
    ("r", "R"),
    ("elasticsearch", "Elasticsearch"),
    ("rabbitmq", "RabbitMQ"),
    ("prometheus", "Prometheus"),
    ("grafana", "Grafana"),
]
VI_SKILLS = [
    ("python", "Python"),
    ("java", "Java"),
    ("php", "PHP"),
    ("javascript", "JavaScript"),
    ("sql", "SQL"),
    ("mysql", "MySQL"),
    ("excel", "Excel"),
    ("misa", "MISA"),
    ("english", "tiếng Anh"),
    ("japanese", "tiếng Nhật"),
    ("tax", "kế toán thuế"),
    ("microsoft_office", "tin học văn phòng"),
    ("test_automation", "kiểm thử tự động"),
    ("manual_testing", "kiểm thử thủ công"),
    ("facebook_ads", "quảng cáo Facebook"),
    ("seo", "SEO"),
    ("content_marketing", "viết nội dung"),
    ("power_bi", "Power BI"),
    ("react", "ReactJS"),
    ("nodejs", "NodeJS"),
    ("spring_boot", "Spring Boot"),
    ("docker", "Docker"),
    ("communication", "kỹ năng giao tiếp"),
    ("negotiation", "kỹ năng đàm phán"),
    ("teamwork", "làm việc nhóm"),
    ("selenium", "Selenium"),
]
TITLE_SENIORITY = {
    "Senior Backend Engineer": ("senior", "Senior"),
    "Engineering Manager": ("manager", "Manager"),
    "Customer Success Manager": ("manager", "Manager"),
    "Software Engineering Intern": ("intern", "Intern"),
    "New Grad Software Engineer": ("junior", "New Grad"),
    "Trưởng nhóm kinh doanh": ("lead", "Trưởng nhóm"),
    "Thực tập sinh Marketing": ("intern", "Thực tập sinh"),
}
TITLE_SKILLS = {
    "Machine Learning Engineer": [("machine_learning", "Machine Learning")],
    "Lập trình viên Java": [("java", "Java")],
    "Nhân viên kế toán": [("accounting", "kế toán")],
    "Chuyên viên phân tích dữ liệu": [("data_analysis", "phân tích dữ liệu")],
}
PREFIXES = [
    ("senior", "Senior"),
    ("junior", "Junior"),
    ("lead", "Lead"),
    ("principal", "Principal"),
]
EN_TRAPS = [
    "We go beyond the brief and Go the extra mile for customers.",
    "Applicants need a grade C or above in Mathematics.",
    "Our kitchen serves Java coffee all day.",
    "Ready to Go? Send us your CV.",
    "You excel at prioritising competing requests.",
    "We go to market twice a year.",
    "You will support our R&D team.",
    "Spark joy in every customer conversation.",
    "Be a Go-getter with a bias for action.",
    "React quickly to customer feedback.",
    "Plan C is never needed here.",
    "Swift decisions, kind feedback.",
]
VI_TRAPS = [
    "Có bằng lái xe hạng C là bắt buộc.",
    "Cà phê Java miễn phí mỗi sáng.",
    "Ứng viên tốt nghiệp loại C trở lên.",
    "Phòng R&D của chúng tôi đang mở rộng.",
    "Let's Go! Gửi CV cho chúng tôi.",
]


TRAP_SKILLS = {"Có bằng lái xe hạng C là bắt buộc.": [("driving_license", "bằng lái xe")]}


class Case:
    """A posting being written, with its gold values kept beside each phrase."""

    def __init__(self, cid: str, source: str, language: str) -> None:
        self.cid, self.source, self.language = cid, source, language
        self.lines: list[str] = []
        self.gold: dict[str, Any] = {"skills_required": {}, "skills_preferred": {}}
        self.subsets: list[str] = []

    def set(self, field: str, value: Any, evidence: str) -> None:
        self.gold[field] = {"value": value, "evidence": evidence}

    def skill(self, kind: str, key: str, evidence: str) -> None:
        other = "skills_preferred" if kind == "skills_required" else "skills_required"
        if key not in self.gold[other]:
            self.gold[kind].setdefault(key, evidence)

    def as_dict(self) -> dict[str, Any]:
        gold = dict(self.gold)
        for kind in ("skills_required", "skills_preferred"):
            gold[kind] = [{"key": k, "evidence": e} for k, e in gold[kind].items()]
        return {
            "id": self.cid,
            "source": self.source,
            "language": self.language,
            "subsets": self.subsets,
            "text": normalize("\n".join(self.lines)),
            "gold": gold,
        }


def _list(names: list[str], last: str) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


def _pick_skills(
    rng: random.Random, pool: list[tuple[str, str]], n: int, taken: set[str]
) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for key, shown in rng.sample(pool, len(pool)):
        if key not in taken and len(out) < n:
            taken.add(key)
            out.append((key, shown))
    return out


def _title(case: Case, rng: random.Random, job: world.Job) -> str:
    title = job.title
    if title in TITLE_SENIORITY:
        case.set("seniority", *TITLE_SENIORITY[title])
    elif case.language == "en" and rng.random() < 0.4:
        value, word = rng.choice(PREFIXES)
        title = f"{word} {title}"
        case.set("seniority", value, word)
    for key, shown in TITLE_SKILLS.get(job.title, []):
        case.skill("skills_required", key, shown)
    if "Intern" in title or "Thực tập" in title:
        case.set("employment_type", "internship", "Intern" if "Intern" in title else "Thực tập")
    return title


def _location(case: Case, job: world.Job) -> None:
    case.lines.append(job.location)
    if job.location.startswith("Remote"):
        case.set("work_mode", "remote", "Remote")
    elif job.location.startswith("Hybrid"):
        case.set("work_mode", "hybrid", "Hybrid")


EN_EXPERIENCE = [
    ("{n}+ years of experience with {skill}", lambda n, m: (n, None), "{n}+ years"),
    ("At least {n} years of professional experience", lambda n, m: (n, None), "At least {n} years"),
    ("{n}-{m} years of experience in a similar role", lambda n, m: (n, m), "{n}-{m} years"),
    ("Minimum of {n} years of hands-on experience", lambda n, m: (n, None), "Minimum of {n} years"),
]
VI_EXPERIENCE = [
    (
        "Tối thiểu {n} năm kinh nghiệm ở vị trí tương đương",
        lambda n, m: (n, None),
        "Tối thiểu {n} năm",
    ),
    ("Có từ {n} - {m} năm kinh nghiệm", lambda n, m: (n, m), "{n} - {m} năm"),
    ("Ít nhất {n} năm kinh nghiệm làm việc với {skill}", lambda n, m: (n, None), "Ít nhất {n} năm"),
]


def _experience(case: Case, rng: random.Random, skill: str | None) -> str | None:
    roll = rng.random()
    if roll < 0.2:
        return None
    if roll < 0.27:
        phrase = (
            "No prior experience required" if case.language == "en" else "Không yêu cầu kinh nghiệm"
        )
        case.set("experience_min", 0, phrase)
        return phrase + "."
    templates = EN_EXPERIENCE if case.language == "en" else VI_EXPERIENCE
    template, bounds, evidence = rng.choice(
        [t for t in templates if skill or "{skill}" not in t[0]]
    )
    n = rng.randrange(1, 8)
    m = n + rng.randrange(1, 4)
    low, high = bounds(n, m)
    shown = evidence.format(n=n, m=m)
    case.set("experience_min", low, shown)
    if high is not None:
        case.set("experience_max", high, shown)
    return template.format(n=n, m=m, skill=skill or "") + "."


EN_SKILL_LINES = [
    "Strong experience with {list}.",
    "Proficiency in {list}.",
    "Hands-on experience building services in {list}.",
    "Solid knowledge of {list}.",
    "Our stack: {list}.",
]
VI_SKILL_LINES = ["Thành thạo {list}.", "Có kinh nghiệm làm việc với {list}."]
EN_PREFERRED = ["Experience with {list} is a plus.", "Nice to have: experience with {list}."]
VI_PREFERRED = [
    "Ưu tiên ứng viên có kinh nghiệm với {list}.",
    "Có kiến thức về {list} là một lợi thế.",
]
EN_EDUCATION = [
    ("Bachelor's degree in Computer Science or a related field.", "bachelor", "Bachelor's"),
    ("BS or MS degree in Engineering.", "bachelor", "BS"),
    ("Master's degree in Economics or a related field.", "master", "Master's"),
    ("PhD degree in Physics or a related field.", "phd", "PhD"),
    ("High school diploma or equivalent.", "high_school", "High school"),
    ("No degree required - we care about what you can do.", "none", "No degree required"),
]
VI_EDUCATION = [
    ("Tốt nghiệp Đại học chuyên ngành Công nghệ thông tin.", "bachelor", "Đại học"),
    ("Tốt nghiệp Cao đẳng trở lên.", "associate", "Cao đẳng"),
    ("Tốt nghiệp THPT trở lên.", "high_school", "THPT"),
]
EN_MODE = [
    ("This role is fully remote.", "remote", "fully remote"),
    ("We work hybrid, three days a week in the office.", "hybrid", "hybrid"),
    ("This is an on-site role in our office.", "onsite", "on-site"),
]
VI_MODE = [
    ("Hình thức làm việc: Làm việc từ xa.", "remote", "Làm việc từ xa"),
    ("Làm việc tại văn phòng của công ty.", "onsite", "tại văn phòng"),
    ("Làm việc kết hợp, 3 ngày tại văn phòng mỗi tuần.", "hybrid", "kết hợp"),
]
EN_TYPE = [
    ("This is a full-time position.", "full_time", "full-time"),
    ("This is a part-time role of 20 hours per week.", "part_time", "part-time"),
    ("This is a 6-month contract role.", "contract", "contract"),
    ("Freelance engagement, paid per project.", "freelance", "Freelance"),
    ("This is a temporary position covering a parental leave.", "temporary", "temporary"),
]
VI_TYPE = [
    ("Hình thức: Toàn thời gian.", "full_time", "Toàn thời gian"),
    ("Làm việc bán thời gian buổi tối.", "part_time", "bán thời gian"),
    ("Công việc thời vụ trong ba tháng cao điểm.", "temporary", "thời vụ"),
]


def _requirements(case: Case, rng: random.Random, job: world.Job) -> None:
    en = case.language == "en"
    pool = EN_SKILLS if en else VI_SKILLS
    taken = set(case.gold["skills_required"])
    required = _pick_skills(rng, pool, rng.randrange(2, 5), taken)
    case.lines.append(
        rng.choice(["Requirements:", "What you'll need:", "Qualifications:"])
        if en
        else rng.choice(["Yêu cầu:", "Yêu cầu ứng viên:"])
    )
    years = _experience(case, rng, required[0][1])
    if years:
        case.lines.append(f"- {years}")
    if years and required[0][1] in years:
        case.skill("skills_required", *required[0])
        required = required[1:]
    if required:
        line = rng.choice(EN_SKILL_LINES if en else VI_SKILL_LINES)
        case.lines.append(
            "- " + line.format(list=_list([s for _, s in required], "and" if en else "và"))
        )
        for key, shown in required:
            case.skill("skills_required", key, shown)
    if rng.random() < 0.6:
        sentence, value, evidence = rng.choice(EN_EDUCATION if en else VI_EDUCATION)
        case.lines.append(f"- {sentence}")
        case.set("education", value, evidence)
    if rng.random() < 0.6:
        preferred = _pick_skills(rng, pool, rng.randrange(1, 3), taken)
        line = rng.choice(EN_PREFERRED if en else VI_PREFERRED)
        case.lines.append(
            line.format(list=_list([s for _, s in preferred], "or" if en else "hoặc"))
        )
        for key, shown in preferred:
            case.skill("skills_preferred", key, shown)


def _terms(case: Case, rng: random.Random) -> None:
    en = case.language == "en"
    if "work_mode" not in case.gold and rng.random() < 0.6:
        sentence, value, evidence = rng.choice(EN_MODE if en else VI_MODE)
        case.lines.append(sentence)
        case.set("work_mode", value, evidence)
    if "employment_type" not in case.gold and rng.random() < 0.6:
        sentence, value, evidence = rng.choice(EN_TYPE if en else VI_TYPE)
        case.lines.append(sentence)
        case.set("employment_type", value, evidence)


def _benefits(case: Case, rng: random.Random) -> None:
    if case.language == "en":
        case.lines += [
            "Benefits:",
            "- Flexible hours and a learning budget",
            "- Free Java coffee and team trips",
        ]
    else:
        case.lines += ["Quyền lợi:", "- Lương tháng 13, du lịch hằng năm", "- Cà phê Java miễn phí"]


def build_case(cid: str, source: str, language: str, rng: random.Random, trap: str | None) -> Case:
    vietnamese = language == "vi"
    board = world.build_board(7, source, f"eval-{cid}", 0, vietnamese)
    # The evaluation set's companies stay the made-up names it was written with.
    board = replace(board, company=world.random_company(7, f"eval-{cid}"))
    job = board.jobs[rng.randrange(len(board.jobs))]
    case = Case(cid, source, language)
    case.lines.append(_title(case, rng, job))
    _location(case, job)
    intro = job.description_paragraphs(board.company)[0]
    case.lines.append(intro)
    if trap:
        case.lines.append(trap)
        case.subsets.append("traps")
        for key, shown in TRAP_SKILLS.get(trap, []):
            case.skill("skills_required", key, shown)  # a real skill beside the trap
    _requirements(case, rng, job)
    _terms(case, rng)
    _benefits(case, rng)
    return case


def build_all(seed: int = 12) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    cases: list[Case] = []
    for source in EN_SOURCES:
        cases += [
            build_case(f"{source}-{n:02d}", source, "en", rng, None) for n in range(PER_EN_SOURCE)
        ]
    for source in VI_SOURCES:
        cases += [
            build_case(f"{source}-{n:02d}", source, "vi", rng, None) for n in range(PER_VI_SOURCE)
        ]
    for n in range(TRAPS_EN):
        source = EN_SOURCES[n % len(EN_SOURCES)]
        cases.append(
            build_case(f"trap-{source}-{n:02d}", source, "en", rng, EN_TRAPS[n % len(EN_TRAPS)])
        )
    for n in range(TRAPS_VI):
        source = VI_SOURCES[n % len(VI_SOURCES)]
        cases.append(
            build_case(f"trap-{source}-{n:02d}", source, "vi", rng, VI_TRAPS[n % len(VI_TRAPS)])
        )
    return [c.as_dict() for c in cases]


def main() -> None:
    rows = build_all()
    with OUT.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{OUT}: {len(rows)} cases")


if __name__ == "__main__":
    main()
