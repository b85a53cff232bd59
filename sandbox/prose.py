"""What a sandbox posting says: descriptions of real length and structure.

A real posting runs 1.5-8 KB: who the company is, what the job does, what it needs
(years of experience, education), what would be nice, the benefits, the pay in one of
the ways postings state it, and an equal-opportunity line. This module writes that, in
English, Vietnamese, German or French, deterministically from the job's own stream of
randomness, so every format that renders the job says the same thing.

Most postings come out at 1.6-3.5 KB. About one in seven is a long one, as boards
carry a tail of them: a section on the team, "your first 90 days", a detailed
benefits list, how the company works and its tools, how people grow, and a longer
hiring process, grown section by section up to a length drawn between 5.3 and 7.7 KB
and never past MAX_TEXT_BYTES. The long sections name no skill, no years and no
degree, so what enrichment reads (experience, education, skills, work mode) is what
the short form states.

A description is a list of blocks, each a heading, a paragraph or a list item, so HTML
formats render <h3>, <p> and <ul> as real boards do and text formats render lines.
"""

from __future__ import annotations

import html
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

BlockKind = Literal["h", "p", "li"]
Language = Literal["en", "vi", "de", "fr"]


@dataclass(frozen=True)
class Block:
    kind: BlockKind
    text: str


@dataclass(frozen=True)
class Facts:
    """What the text states beyond the job's title, place and skills (drawn once per job)."""

    language: Language
    experience: tuple[int, int | None] | None  # (minimum, maximum) years; (0, None): none needed
    experience_form: int  # which of the language's phrasings
    education: int | None  # index into the language's education lines
    work_mode: str | None  # remote | hybrid | onsite, as the text states it
    responsibilities: tuple[int, ...]  # indexes into the department's duties
    nice: tuple[int, ...]
    benefits: tuple[int, ...]
    about: tuple[int, ...]
    long_form: bool  # a fifth of postings carry a "how we work" section
    salary_form: int
    eeo_form: int
    long: Long | None = None  # a long posting's extra sections (about one in seven)


@dataclass(frozen=True)
class Long:
    """What makes a posting long: its extra sections and the length they fill up to."""

    target: int  # bytes of description text the optional sections grow it to
    order: tuple[str, ...]  # the optional sections (OPTIONAL), in the order they are tried
    team_size: int
    team: tuple[int, ...]  # indexes into TEAM
    first_days: int  # the style of FIRST_DAYS
    perks: tuple[int, ...]  # the detailed benefits, in place of the short list
    how: tuple[int, ...]  # more of "how we work" (HOW_MORE)
    tools: tuple[int, ...]
    growth: tuple[int, ...]
    process_notes: tuple[int, ...]


# A long posting's share, and the bounds of its length. MAX_TEXT_BYTES is a hard cap on
# the description as text (UTF-8), leaving room for the title and location lines inside
# 8 KB; MAX_HTML_CHARS caps the same description as rich-text HTML.
LONG_SHARE = 0.14
LONG_TARGET = (5_300, 7_700, 5_800)  # low, high, mode: most long ones are 5-6 KB
MAX_TEXT_BYTES = 7_800
MAX_HTML_CHARS = 8_000
# The sections a long posting may add beyond its base (detailed benefits, "how we work"
# and the detailed hiring process), tried in a drawn order until the target is reached.
OPTIONAL = ("team", "first_days", "how", "tools", "growth", "process_notes")


def draw_facts(
    rng: random.Random, language: Language, location: str, *, entry_level: bool = False
) -> Facts:
    """Every choice a description makes, drawn in one fixed order from the job's stream.
    An entry-level job (an intern, a new graduate) asks for no years of experience."""
    roll = rng.random()
    experience: tuple[int, int | None] | None = None  # a fifth of postings state none
    if roll >= 0.2:
        low = rng.randrange(1, 8)
        experience = (low, low + rng.randrange(1, 4) if rng.random() < 0.3 else None)
    if entry_level and experience is not None:
        experience = (0, None)  # "no prior experience required"
    form = rng.randrange(3)
    education = rng.randrange(len(EDUCATION[language])) if rng.random() < 0.55 else None
    if location.startswith("Remote"):
        mode: str | None = "remote"
    elif location.startswith("Hybrid"):
        mode = "hybrid"
    else:
        mode = rng.choice(("onsite", "hybrid", "remote", None, None))
    return Facts(
        language=language,
        experience=experience,
        experience_form=form,
        education=education,
        work_mode=mode,
        responsibilities=tuple(rng.sample(range(len(DUTY_TEXT["en"])), rng.randrange(4, 8))),
        nice=tuple(rng.sample(range(len(NICE[language])), rng.randrange(1, 4))),
        benefits=tuple(rng.sample(range(len(BENEFITS[language])), rng.randrange(3, 7))),
        about=tuple(rng.sample(range(len(ABOUT[language])), rng.randrange(2, 4))),
        long_form=rng.random() < 0.2,
        salary_form=rng.randrange(4),
        eeo_form=rng.randrange(2),
        # Drawn last, so every choice above is what it was before long postings existed.
        long=_draw_long(rng, language) if rng.random() < LONG_SHARE else None,
    )


def _some(rng: random.Random, pool: tuple[object, ...], low: int, high: int) -> tuple[int, ...]:
    """Between `low` and `high` indexes of `pool` (as many as it has), in a drawn order."""
    count = min(len(pool), rng.randint(low, high))
    return tuple(rng.sample(range(len(pool)), count))


def _draw_long(rng: random.Random, language: Language) -> Long:
    low, high, mode = LONG_TARGET
    return Long(
        target=int(rng.triangular(low, high, mode)),
        order=tuple(rng.sample(OPTIONAL, len(OPTIONAL))),
        team_size=rng.randrange(4, 15),
        team=tuple(sorted(_some(rng, TEAM[language], 3, 5))),  # paragraphs keep their order
        first_days=rng.randrange(len(FIRST_DAYS[language])),
        perks=_some(rng, PERKS[language], 6, 9),
        how=tuple(sorted(_some(rng, HOW_MORE[language], 2, 4))),
        tools=_some(rng, TOOLS[language], 3, 6),
        growth=tuple(sorted(_some(rng, GROWTH[language], 2, 4))),
        process_notes=tuple(sorted(_some(rng, PROCESS_NOTES[language], 1, 3))),
    )


# ---------------------------------------------------------------- phrase banks

HEADINGS: dict[Language, dict[str, str]] = {
    "en": {
        "about": "About us",
        "do": "What you will do",
        "need": "What you bring",
        "nice": "Nice to have",
        "benefits": "What we offer",
        "pay": "Compensation",
        "how": "How we work",
        "process": "Our hiring process",
    },
    "vi": {
        "about": "Về chúng tôi",
        "do": "Mô tả công việc",
        "need": "Yêu cầu ứng viên",
        "nice": "Ưu tiên",
        "benefits": "Quyền lợi",
        "pay": "Thu nhập",
        "how": "Cách chúng tôi làm việc",
        "process": "Quy trình tuyển dụng",
    },
    "de": {
        "about": "Über uns",
        "do": "Deine Aufgaben",
        "need": "Dein Profil",
        "nice": "Wünschenswert",
        "benefits": "Was wir bieten",
        "pay": "Vergütung",
        "how": "So arbeiten wir",
        "process": "Unser Bewerbungsprozess",
    },
    "fr": {
        "about": "Qui sommes-nous",
        "do": "Vos missions",
        "need": "Votre profil",
        "nice": "Les plus",
        "benefits": "Ce que nous offrons",
        "pay": "Rémunération",
        "how": "Notre façon de travailler",
        "process": "Notre processus de recrutement",
    },
}

INTRO: dict[Language, str] = {
    # The first line names the employer, as real postings do ("Quiet Bank is hiring...").
    "en": "{company} is hiring {a} {title} to join the {department} team.",
    "vi": "{company} tuyển dụng vị trí {title} cho nhóm {department}.",
    "de": "{company} sucht eine:n {title} für das Team {department}.",
    "fr": "{company} recrute un·e {title} pour rejoindre l'équipe {department}.",
}

SKILLS_LINE: dict[Language, str] = {
    "en": "You will work with {skills} every day and ship work that customers use.",
    "vi": "Bạn sẽ làm việc với {skills} hằng ngày.",
    "de": "Du arbeitest täglich mit {skills} und lieferst Software, die Kunden nutzen.",
    "fr": "Vous travaillerez chaque jour avec {skills} sur des produits utilisés par nos clients.",
}

ABOUT: dict[Language, tuple[str, ...]] = {
    "en": (
        "{company} builds software that helps small businesses run their day-to-day work.",
        "We are a team of about 240 people in six countries, and we have been profitable "
        "since 2019.",
        "Our customers range from family-run shops to public companies with thousands of "
        "employees.",
        "We publish our engineering handbook and our salary bands, because we think clarity "
        "makes better teams.",
        "We are backed by long-term investors and reinvest most of what we earn in the product.",
    ),
    "vi": (
        "{company} phát triển phần mềm giúp các doanh nghiệp vừa và nhỏ vận hành hiệu quả.",
        "Chúng tôi có hơn 200 nhân sự tại Hà Nội, Hồ Chí Minh và Đà Nẵng.",
        "Khách hàng của chúng tôi gồm các chuỗi bán lẻ, ngân hàng và doanh nghiệp sản xuất.",
        "Công ty có văn hoá cởi mở, minh bạch và luôn lắng nghe ý kiến của nhân viên.",
    ),
    "de": (
        "{company} entwickelt Software, mit der mittelständische Unternehmen ihre Abläufe steuern.",
        "Wir sind rund 180 Menschen an vier Standorten in Europa.",
        "Zu unseren Kunden zählen Handwerksbetriebe ebenso wie börsennotierte Konzerne.",
        "Wir legen Wert auf eine offene Feedbackkultur und kurze Entscheidungswege.",
    ),
    "fr": (
        "{company} conçoit des logiciels qui simplifient le quotidien des PME.",
        "Nous sommes environ 150 personnes réparties entre Paris, Lyon et Bordeaux.",
        "Nos clients vont de l'artisan indépendant au groupe coté en bourse.",
        "Nous privilégions la transparence, l'autonomie et l'entraide.",
    ),
}

# Duties are chosen by index: each language words the same eight.
DUTY_TEXT: dict[Language, tuple[str, ...]] = {
    "en": (
        "Design, build and maintain the services behind our core product.",
        "Work closely with product managers and designers to shape new features.",
        "Review code and help teammates grow through thoughtful feedback.",
        "Own features end to end, from the first sketch to monitoring in production.",
        "Improve the reliability, performance and observability of our systems.",
        "Talk to customers to understand the problems they need solved.",
        "Write clear documentation and share what you learn with the wider team.",
        "Take part in an on-call rotation, about one week in eight.",
    ),
    "vi": (
        "Thiết kế, phát triển và bảo trì các dịch vụ của sản phẩm chính.",
        "Phối hợp với đội sản phẩm và thiết kế để xây dựng tính năng mới.",
        "Review code và hỗ trợ đồng nghiệp cùng tiến bộ.",
        "Chịu trách nhiệm tính năng từ khâu ý tưởng đến vận hành thực tế.",
        "Cải thiện độ ổn định và hiệu năng của hệ thống.",
        "Trao đổi với khách hàng để hiểu rõ nhu cầu của họ.",
        "Viết tài liệu rõ ràng và chia sẻ kiến thức với cả nhóm.",
        "Tham gia trực hệ thống theo lịch luân phiên.",
    ),
    "de": (
        "Du entwirfst, entwickelst und betreust die Dienste hinter unserem Kernprodukt.",
        "Du arbeitest eng mit Produktmanagement und Design an neuen Funktionen.",
        "Du gibst Code-Reviews und hilfst deinem Team, besser zu werden.",
        "Du verantwortest Features von der ersten Skizze bis zum Betrieb.",
        "Du verbesserst Zuverlässigkeit, Performance und Monitoring unserer Systeme.",
        "Du sprichst mit Kunden, um ihre Probleme wirklich zu verstehen.",
        "Du schreibst verständliche Dokumentation und teilst dein Wissen.",
        "Du nimmst an der Rufbereitschaft teil, etwa eine Woche von acht.",
    ),
    "fr": (
        "Concevoir, développer et maintenir les services de notre produit principal.",
        "Travailler avec les équipes produit et design sur les nouvelles fonctionnalités.",
        "Relire le code de vos collègues et les aider à progresser.",
        "Porter des fonctionnalités de bout en bout, de l'idée à la production.",
        "Améliorer la fiabilité, les performances et la supervision de nos systèmes.",
        "Échanger avec nos clients pour comprendre leurs besoins.",
        "Rédiger une documentation claire et partager vos connaissances.",
        "Participer aux astreintes, environ une semaine sur huit.",
    ),
}

# Experience: the phrasings the rules (and so the sandbox's model) read, per language.
EXPERIENCE: dict[Language, tuple[str, ...]] = {
    "en": (
        "{n}+ years of experience with {skill}.",
        "At least {n} years of professional experience.",
        "Minimum of {n} years of hands-on experience.",
    ),
    "vi": (
        "Tối thiểu {n} năm kinh nghiệm ở vị trí tương đương.",
        "Ít nhất {n} năm kinh nghiệm làm việc với {skill}.",
        "Tối thiểu {n} năm kinh nghiệm trong lĩnh vực liên quan.",
    ),
    "de": (
        "Mindestens {n} Jahre Berufserfahrung mit {skill}.",
        "{n}+ Jahre Erfahrung in einer vergleichbaren Rolle.",
        "Mehrjährige Erfahrung ({n} Jahre oder mehr) in der Softwareentwicklung.",
    ),
    "fr": (
        "Au moins {n} ans d'expérience avec {skill}.",
        "{n} ans d'expérience minimum sur un poste similaire.",
        "Une expérience de {n} ans ou plus en développement.",
    ),
}
EXPERIENCE_RANGE: dict[Language, str] = {
    "en": "{n}-{m} years of experience in a similar role.",
    "vi": "Có từ {n} - {m} năm kinh nghiệm.",
    "de": "{n} bis {m} Jahre Berufserfahrung.",
    "fr": "Entre {n} et {m} ans d'expérience.",
}
NO_EXPERIENCE: dict[Language, str] = {
    "en": "No prior experience required: we will teach you what you need.",
    "vi": "Không yêu cầu kinh nghiệm, được đào tạo từ đầu.",
    "de": "Keine Berufserfahrung erforderlich: wir arbeiten dich ein.",
    "fr": "Aucune expérience requise : nous vous formons.",
}
SKILLS_NEEDED: dict[Language, str] = {
    "en": "Strong experience with {skills}.",
    "vi": "Thành thạo {skills}.",
    "de": "Sehr gute Kenntnisse in {skills}.",
    "fr": "Une bonne maîtrise de {skills}.",
}
EDUCATION: dict[Language, tuple[str, ...]] = {
    "en": (
        "Bachelor's degree in Computer Science or a related field.",
        "Master's degree in Economics, Statistics or a related field.",
        "BS or MS degree in Engineering.",
        "High school diploma or equivalent.",
    ),
    "vi": (
        "Tốt nghiệp Đại học chuyên ngành Công nghệ thông tin.",
        "Tốt nghiệp Cao đẳng trở lên.",
        "Tốt nghiệp THPT trở lên.",
    ),
    "de": (
        "Abgeschlossenes Studium der Informatik oder eine vergleichbare Ausbildung.",
        "Master in Wirtschaftswissenschaften oder Statistik.",
    ),
    "fr": (
        "Diplôme d'ingénieur ou Master en informatique.",
        "Bac+3 en gestion ou équivalent.",
    ),
}
NICE: dict[Language, tuple[str, ...]] = {
    "en": (
        "Experience with event-driven systems is a plus.",
        "You have mentored junior colleagues.",
        "You have worked in a regulated industry such as finance or health.",
        "Open-source contributions we can read.",
    ),
    "vi": (
        "Ưu tiên ứng viên có kinh nghiệm làm việc với khách hàng Nhật Bản.",
        "Có khả năng giao tiếp tiếng Anh là một lợi thế.",
        "Đã từng làm việc trong môi trường Agile.",
    ),
    "de": (
        "Erfahrung mit ereignisgesteuerten Systemen ist ein Plus.",
        "Du hast bereits Kolleg:innen eingearbeitet.",
        "Gute Englischkenntnisse.",
    ),
    "fr": (
        "Une expérience des architectures orientées événements est un plus.",
        "Vous avez déjà accompagné des profils juniors.",
        "Un bon niveau d'anglais.",
    ),
}
BENEFITS: dict[Language, tuple[str, ...]] = {
    "en": (
        "Flexible hours and a yearly learning budget of 1,500.",
        "28 days of paid holiday plus public holidays.",
        "Private health, dental and vision insurance.",
        "A home-office allowance for your desk and chair.",
        "Parental leave of 20 weeks at full pay.",
        "Company-wide offsites twice a year.",
        "A pension plan with employer matching.",
    ),
    "vi": (
        "Lương tháng 13 và thưởng theo hiệu quả công việc.",
        "Bảo hiểm sức khoẻ cao cấp cho nhân viên và người thân.",
        "Du lịch công ty hằng năm.",
        "Laptop và thiết bị làm việc được cấp đầy đủ.",
        "12 ngày phép năm và các ngày nghỉ lễ theo luật.",
        "Đóng bảo hiểm xã hội đầy đủ trên toàn bộ lương.",
    ),
    "de": (
        "30 Tage Urlaub.",
        "Flexible Arbeitszeiten und ein jährliches Weiterbildungsbudget.",
        "Zuschuss zum Deutschlandticket.",
        "Betriebliche Altersvorsorge mit Arbeitgeberzuschuss.",
        "Moderne Hardware nach Wahl.",
        "Team-Events und ein jährliches Offsite.",
    ),
    "fr": (
        "Tickets restaurant et mutuelle prise en charge à 100 %.",
        "25 jours de congés payés et des RTT.",
        "Télétravail flexible et une prime d'équipement.",
        "Un budget formation annuel.",
        "Remboursement de 50 % du titre de transport.",
        "Un séminaire d'entreprise chaque année.",
    ),
}
WORK_MODE: dict[Language, dict[str, str]] = {
    "en": {
        "remote": "This role is fully remote.",
        "hybrid": "We work hybrid, three days a week in the office.",
        "onsite": "This is an on-site role in our office.",
    },
    "vi": {
        "remote": "Hình thức làm việc: Làm việc từ xa.",
        "hybrid": "Làm việc kết hợp, 3 ngày tại văn phòng mỗi tuần.",
        "onsite": "Làm việc tại văn phòng của công ty.",
    },
    "de": {
        "remote": "Die Stelle ist vollständig remote.",
        "hybrid": "Wir arbeiten hybrid: drei Tage pro Woche im Büro.",
        "onsite": "Die Stelle ist vor Ort in unserem Büro.",
    },
    "fr": {
        "remote": "Ce poste est en télétravail complet.",
        "hybrid": "Nous travaillons en hybride, trois jours par semaine au bureau.",
        "onsite": "Ce poste est sur site, dans nos bureaux.",
    },
}
# The ways real postings state a yearly range (pay transparency laws made the first
# two common in the US); {lo}/{hi} come formatted with their currency.
SALARY: dict[Language, tuple[str, ...]] = {
    "en": (
        "The base salary range for this role is {lo} - {hi} per year.",
        "Pay range: {lo} to {hi} annually, plus equity.",
        "Salary: {lo}–{hi} per annum, depending on experience.",
        "We pay {lo} - {hi} a year for this position.",
    ),
    "vi": (  # monthly, as Vietnamese postings state pay ({hi} carries "/tháng")
        "Mức lương: {lo} - {hi}.",
        "Thu nhập từ {lo} đến {hi}.",
        "Lương: {lo} - {hi}, thỏa thuận theo năng lực.",
        "Mức lương cạnh tranh: {lo} - {hi}.",
    ),
    "de": (
        "Das Jahresgehalt für diese Stelle liegt zwischen {lo} und {hi}.",
        "Gehaltsspanne: {lo} - {hi} pro Jahr.",
        "Wir bieten {lo} bis {hi} brutto im Jahr.",
        "Vergütung: {lo} - {hi} jährlich, je nach Erfahrung.",
    ),
    "fr": (
        "La rémunération annuelle est comprise entre {lo} et {hi}.",
        "Salaire : {lo} - {hi} par an, selon expérience.",
        "Fourchette de salaire : {lo} à {hi} brut annuel.",
        "Rémunération : de {lo} à {hi} par an.",
    ),
}
EEO: dict[Language, tuple[str, ...]] = {
    "en": (
        "{company} is an equal opportunity employer. We welcome applicants of every "
        "background, gender, age, religion, disability and sexual orientation.",
        "We are committed to building a diverse team and encourage applications from "
        "people of all backgrounds. Reasonable accommodations are available on request.",
    ),
    "vi": (
        "{company} tạo cơ hội bình đẳng cho mọi ứng viên, không phân biệt giới tính, tuổi "
        "tác hay tôn giáo.",
        "Hồ sơ ứng tuyển xin gửi bằng tiếng Việt hoặc tiếng Anh.",
    ),
    "de": (
        "Wir freuen uns über Bewerbungen unabhängig von Geschlecht, Herkunft, Religion, "
        "Behinderung, Alter oder sexueller Identität.",
        "{company} ist ein Arbeitgeber, der Vielfalt fördert.",
    ),
    "fr": (
        "{company} s'engage pour la diversité et l'égalité des chances. Tous nos postes sont "
        "ouverts aux personnes en situation de handicap.",
        "Nous étudions toutes les candidatures sans distinction d'origine, de genre ou d'âge.",
    ),
}
HOW_WE_WORK: dict[Language, tuple[str, ...]] = {
    "en": (
        "Teams here are small, with four to seven people, and each one owns a part of the "
        "product from its roadmap to its pager. We plan in six-week cycles followed by two "
        "weeks of cool-down, in which people fix what bothers them, write, or learn "
        "something new. Nobody is asked to estimate in hours.",
        "We write things down. Decisions are made in short written proposals that anyone "
        "may comment on, and meetings are for what writing cannot settle. Most of our "
        "documents are public inside the company, including the board's minutes and the "
        "salary bands for every role.",
        "We ship small changes many times a day behind feature flags, review every change "
        "within a working day, and keep our main branch deployable at all times. When "
        "something breaks we write a blameless review and fix the system, not the person.",
        "Your first month is planned: a buddy, a first change in production in your first "
        "week, and time with every team you will work with. We check in after thirty, "
        "sixty and ninety days to make sure the job is what we promised.",
    ),
    "vi": (
        "Các nhóm làm việc theo mô hình Scrum, mỗi sprint kéo dài hai tuần. Mỗi thành viên "
        "đều được tham gia vào việc lập kế hoạch và đánh giá kết quả.",
        "Chúng tôi khuyến khích chia sẻ kiến thức qua các buổi hội thảo nội bộ hằng tháng "
        "và hỗ trợ chi phí cho các khoá học chuyên môn.",
    ),
    "de": (
        "Unsere Teams sind klein und verantworten ihren Teil des Produkts von der Planung "
        "bis zum Betrieb. Wir planen in Zyklen von sechs Wochen und nehmen uns danach Zeit "
        "für Aufräumarbeiten und Weiterbildung.",
        "Entscheidungen treffen wir schriftlich, damit alle mitreden können. Meetings gibt "
        "es nur für das, was sich schriftlich nicht klären lässt.",
    ),
    "fr": (
        "Nos équipes sont petites et autonomes : chacune est responsable d'une partie du "
        "produit, de la feuille de route à la production. Nous travaillons par cycles de "
        "six semaines.",
        "Les décisions sont prises par écrit pour que chacun puisse contribuer. Les "
        "réunions sont réservées à ce que l'écrit ne peut pas trancher.",
    ),
}
ROLE: dict[Language, str] = {
    # Why the job exists: the paragraph most real postings open with after the intro.
    "en": "The {department} team is growing and we need someone who enjoys both the craft "
    "and the people side of the work. As our {title}, you will take ownership of real "
    "problems from your first weeks, work with a team that reviews every change with care, "
    "and see what you build used by thousands of customers.",
    "vi": "Nhóm {department} đang mở rộng và cần thêm thành viên. Ở vị trí {title}, bạn sẽ "
    "được giao những bài toán thực tế ngay từ những tuần đầu, làm việc cùng đồng nghiệp "
    "giàu kinh nghiệm và thấy sản phẩm của mình được hàng nghìn khách hàng sử dụng.",
    "de": "Das Team {department} wächst, und wir suchen Verstärkung. Als {title} übernimmst "
    "du von Anfang an Verantwortung für echte Aufgaben, arbeitest in einem Team, das jede "
    "Änderung sorgfältig prüft, und siehst, wie Tausende Kunden nutzen, was du baust.",
    "fr": "L'équipe {department} s'agrandit et nous cherchons un nouveau talent. En tant que "
    "{title}, vous prendrez en main des sujets concrets dès vos premières semaines, au sein "
    "d'une équipe bienveillante, et verrez vos réalisations utilisées par des milliers de "
    "clients.",
}
PROCESS: dict[Language, tuple[str, ...]] = {
    "en": (
        "A 30-minute call with someone from our recruiting team.",
        "A conversation with the hiring manager about your experience.",
        "A practical exercise that takes no more than two hours, paid at our hourly rate.",
        "Meeting two future teammates, then a decision within a week.",
    ),
    "vi": (
        "Sàng lọc hồ sơ và phỏng vấn qua điện thoại.",
        "Phỏng vấn chuyên môn với trưởng nhóm.",
        "Nhận kết quả trong vòng 5 ngày làm việc.",
    ),
    "de": (
        "Ein kurzes Kennenlernen per Video.",
        "Ein Fachgespräch mit der künftigen Teamleitung.",
        "Eine kleine Praxisaufgabe und eine Entscheidung innerhalb einer Woche.",
    ),
    "fr": (
        "Un premier échange de 30 minutes avec notre équipe recrutement.",
        "Un entretien avec votre futur manager.",
        "Un cas pratique, puis une réponse sous une semaine.",
    ),
}
UPDATE: dict[Language, str] = {
    "en": "Update {n}: the team has grown and the scope is wider.",
    "vi": "Cập nhật {n}: mở rộng phạm vi công việc.",
    "de": "Update {n}: Das Team ist gewachsen, die Aufgaben sind breiter.",
    "fr": "Mise à jour {n} : l'équipe a grandi et le périmètre s'élargit.",
}
# ---------------------------------------------------------------- long postings
# Written so that the rules read nothing new in them: no skill of the catalogue, no
# years, no degree, no work-mode or employment-type word, no "nice to have" cue.

LONG_HEADINGS: dict[Language, dict[str, str]] = {
    "en": {"first_days": "Your first 90 days", "tools": "Tools we use", "growth": "How you will grow"},
    "vi": {"first_days": "90 ngày đầu tiên", "tools": "Công cụ làm việc", "growth": "Cơ hội phát triển"},
    "de": {"first_days": "Deine ersten 90 Tage", "tools": "Unsere Werkzeuge", "growth": "Deine Entwicklung"},
    "fr": {"first_days": "Vos 90 premiers jours", "tools": "Nos outils", "growth": "Évoluer chez nous"},
}  # fmt: skip
# The team behind the job: paragraphs after "about us" ({n}: the team's size).
TEAM: dict[Language, tuple[str, ...]] = {
    "en": (
        "The {department} team is {n} people today, split into two small groups that share "
        "one backlog. Most of us joined from smaller companies and wanted a place that gives "
        "a team real ownership without the chaos of an early start-up.",
        "You will report to the head of {department}, who joined {company} as an individual "
        "contributor and still does hands-on work every week. One-to-ones are weekly, they "
        "belong to you, and the agenda is yours to set.",
        "We stay close to the people who use what we build. Once a quarter everyone in "
        "{department} spends a day listening to support calls, and what we hear on those "
        "days shapes the plan for the next quarter.",
        "We care about a sustainable pace. Evenings and weekends are yours, nobody expects "
        "an answer to a message sent after hours, and the out-of-hours rota is paid and "
        "shared fairly across the team.",
        "{company} has grown steadily rather than quickly. We hire when the work is already "
        "there, so a new {title} arrives to a real backlog and a team that has the time to "
        "welcome them, not to a reorganisation.",
        "People tend to stay: several of the leads in {department} started in jobs like this "
        "one, and the team still has most of the people who were in it when it began.",
        "Our customers work in more than 30 countries, and the people in {department} come "
        "from almost as many. We write for readers whose first language may not be ours, "
        "and we are patient with accents, including our own.",
    ),
    "vi": (
        "Nhóm {department} hiện có {n} thành viên, cùng làm việc trên một danh sách công việc "
        "chung. Phần lớn chúng tôi đến từ các công ty khởi nghiệp và mong muốn một môi trường "
        "ổn định hơn nhưng vẫn được tự chủ.",
        "Bạn sẽ báo cáo trực tiếp cho trưởng nhóm {department}, người đã gắn bó với {company} "
        "từ những ngày đầu. Mỗi tuần đều có buổi trao đổi riêng để bạn chia sẻ khó khăn và đề "
        "xuất ý tưởng.",
        "Mỗi quý, cả nhóm dành một ngày để nghe trực tiếp các cuộc gọi hỗ trợ khách hàng. "
        "Những gì chúng tôi ghi nhận trong ngày đó sẽ định hướng kế hoạch của quý tiếp theo.",
        "Chúng tôi tôn trọng thời gian cá nhân: buổi tối và cuối tuần là của bạn, không ai "
        "mong đợi bạn trả lời tin nhắn ngoài giờ làm việc.",
        "{company} phát triển bền vững, không chạy theo tốc độ. Chúng tôi chỉ tuyển thêm người "
        "khi công việc thực sự cần, vì vậy mỗi {title} mới đều có người hướng dẫn và thời gian "
        "để hòa nhập.",
        "Nhiều trưởng nhóm hiện nay của {company} bắt đầu từ những vị trí như vị trí này. Chúng "
        "tôi tin rằng con người gắn bó lâu dài khi được tin tưởng và ghi nhận đúng lúc.",
        "Khách hàng của chúng tôi đến từ nhiều quốc gia, vì vậy nhóm {department} thường "
        "xuyên làm việc cùng đồng nghiệp ở các múi giờ khác nhau.",
    ),
    "de": (
        "Das Team {department} besteht heute aus {n} Personen in zwei kleinen Gruppen mit "
        "einem gemeinsamen Backlog. Viele von uns kommen aus kleineren Firmen und wollten "
        "mehr Verantwortung, aber nicht das Chaos eines frühen Start-ups.",
        "Du berichtest an die Leitung von {department}, die selbst als Fachkraft bei {company} "
        "angefangen hat und bis heute jede Woche mitarbeitet. Einzelgespräche finden "
        "wöchentlich statt, und die Agenda bestimmst du.",
        "Einmal im Quartal hört das ganze Team einen Tag lang bei Supportgesprächen zu. Was "
        "wir dort lernen, fließt direkt in die Planung des nächsten Quartals ein.",
        "Uns ist ein nachhaltiges Tempo wichtig: Abende und Wochenenden gehören dir, und "
        "niemand erwartet eine Antwort auf Nachrichten außerhalb der Arbeitszeit.",
        "{company} ist stetig gewachsen, nicht sprunghaft. Wir stellen erst ein, wenn die "
        "Arbeit da ist, deshalb findet eine neue Person als {title} ein eingespieltes Team "
        "vor, das Zeit für die Einarbeitung hat.",
        "Viele bleiben lange: Mehrere Teamleitungen bei {company} haben in einer Stelle wie "
        "dieser angefangen.",
        "Unsere Kundinnen und Kunden sitzen in mehr als 30 Ländern, und im Team {department} "
        "arbeiten Menschen aus fast ebenso vielen. Wir schreiben so, dass man uns auch "
        "versteht, wenn es nicht die eigene Muttersprache ist.",
        "Wir bleiben nah an den Menschen, die unser Produkt nutzen: Wer im Team {department} "
        "arbeitet, spricht regelmäßig selbst mit Kundinnen und Kunden, nicht nur über sie.",
    ),
    "fr": (
        "L'équipe {department} compte aujourd'hui {n} personnes, réparties en deux petits "
        "groupes qui partagent une même feuille de route. La plupart d'entre nous viennent de "
        "structures plus petites et cherchaient de l'autonomie sans le désordre d'une jeune "
        "start-up.",
        "Vous serez rattaché·e à la personne qui dirige l'équipe {department}, arrivée chez "
        "{company} comme contributrice individuelle et toujours impliquée dans l'opérationnel. "
        "Les points individuels sont hebdomadaires et c'est vous qui en fixez l'ordre du jour.",
        "Une fois par trimestre, toute l'équipe passe une journée à écouter les appels du "
        "support client. Ce que nous y apprenons oriente directement les priorités du "
        "trimestre suivant.",
        "Nous tenons à un rythme soutenable : vos soirées et vos week-ends vous appartiennent, "
        "et personne n'attend de réponse à un message envoyé hors des heures de travail.",
        "{company} a grandi régulièrement, sans précipitation. Nous recrutons quand le travail est "
        "déjà là : la personne qui rejoint l'équipe comme {title} trouve donc des collègues "
        "qui ont le temps de l'accueillir.",
        "Beaucoup d'entre nous restent longtemps : plusieurs responsables d'équipe chez "
        "{company} ont commencé sur un poste comme celui-ci.",
        "Nos clients sont présents dans plus de 30 pays, et les membres de l'équipe "
        "{department} viennent de presque autant d'horizons. Nous écrivons pour être compris "
        "de celles et ceux qui ne travaillent pas dans leur langue maternelle.",
        "Nous restons proches des personnes qui utilisent notre produit : chaque membre de "
        "l'équipe {department} échange régulièrement avec des clients, et pas seulement à "
        "leur sujet.",
    ),
}
# "Your first 90 days", in one of a few styles (by days, by month, by milestone).
FIRST_DAYS: dict[Language, tuple[tuple[str, str, str], ...]] = {
    "en": (
        (
            "Days 1-30: you set up your tools, meet everyone in {department} one to one and "
            "ship a first small change with a teammate at your side.",
            "Days 31-60: you own a piece of work from start to finish and present it at our "
            "fortnightly demo.",
            "Days 61-90: you help plan the next cycle, bring your own view of what we should "
            "build next, and we sit down together to review your first three months.",
        ),
        (
            "First month: you learn how customers use the product by shadowing support, read "
            "our decision log and pair with a different colleague each week.",
            "Second month: you lead a small project of your own, with your manager as a "
            "sounding board rather than a supervisor.",
            "Third month: you are a full member of the rota and the planning, and we ask you "
            "what surprised you, so we can make the next person's start better.",
        ),
        (
            "By day 30 you know the people and the product, and your first small change is live.",
            "By day 60 you run a piece of work on your own and have presented it to the "
            "wider {department} team.",
            "By day 90 you are planning the next cycle with us, and we review your first "
            "three months together, in both directions.",
        ),
    ),
    "vi": (
        (
            "30 ngày đầu: làm quen với sản phẩm, gặp riêng từng thành viên nhóm {department} "
            "và hoàn thành nhiệm vụ nhỏ đầu tiên cùng người hướng dẫn.",
            "Ngày 31-60: bạn tự đảm nhận một phần việc từ đầu đến cuối và trình bày kết quả "
            "trong buổi demo của nhóm.",
            "Ngày 61-90: bạn tham gia lập kế hoạch cho giai đoạn tiếp theo và cùng quản lý "
            "nhìn lại ba tháng đầu tiên.",
        ),
        (
            "Tháng đầu tiên: bạn được cấp đầy đủ tài khoản, thiết bị và có một đồng nghiệp "
            "kèm cặp trong suốt quá trình hội nhập.",
            "Tháng thứ hai: bạn chủ động đề xuất cải tiến cho quy trình hiện tại và cùng quản "
            "lý thống nhất mục tiêu cho quý.",
            "Tháng thứ ba: bạn là thành viên chính thức của nhóm và được mời góp ý để người "
            "đến sau hội nhập tốt hơn.",
        ),
    ),
    "de": (
        (
            "Tage 1-30: Du richtest dich ein, lernst alle im Team {department} in "
            "Einzelgesprächen kennen und bringst mit deinem Buddy eine erste kleine Änderung "
            "live.",
            "Tage 31-60: Du verantwortest ein eigenes Thema von Anfang bis Ende und stellst "
            "es in unserer Demo vor.",
            "Tage 61-90: Du planst den nächsten Zyklus mit und ziehst mit deiner "
            "Führungskraft eine erste Bilanz.",
        ),
        (
            "Erster Monat: Du hörst im Support mit, liest unser Entscheidungsprotokoll und "
            "arbeitest jede Woche mit einer anderen Kollegin oder einem anderen Kollegen.",
            "Zweiter Monat: Du leitest ein kleines eigenes Projekt, und deine Führungskraft "
            "steht dir dabei als Sparringspartner zur Seite.",
            "Dritter Monat: Du bist fester Teil von Planung und Rufbereitschaft, und wir "
            "fragen dich, was wir beim nächsten Einstieg besser machen können.",
        ),
    ),
    "fr": (
        (
            "Jours 1 à 30 : vous prenez vos marques, rencontrez chaque membre de l'équipe "
            "{department} et livrez une première petite amélioration avec votre binôme.",
            "Jours 31 à 60 : vous prenez en charge un sujet de bout en bout et le présentez "
            "lors de notre démo d'équipe.",
            "Jours 61 à 90 : vous participez à la planification du cycle suivant et faites un "
            "premier bilan avec votre manager.",
        ),
        (
            "Premier mois : vous écoutez des appels du support, lisez notre journal de "
            "décisions et travaillez chaque semaine avec un·e collègue différent·e.",
            "Deuxième mois : vous pilotez un petit projet, avec votre manager dans le rôle de "
            "sparring-partner plutôt que de superviseur.",
            "Troisième mois : vous faites pleinement partie de l'équipe, et nous vous "
            "demandons ce qui vous a surpris pour mieux accueillir les suivant·e·s.",
        ),
    ),
}
# The detailed benefits list a long posting shows in place of the short one.
PERKS: dict[Language, tuple[str, ...]] = {
    "en": (
        "Health: private medical, dental and vision cover for you and your dependants from "
        "your first day, with no waiting period.",
        "Time off: 28 days of paid holiday plus public holidays, and we ask everyone to take "
        "at least two weeks in a row once a year.",
        "Learning: a personal budget for courses, books and conferences, and two study days "
        "a year to spend it on.",
        "Family: 20 weeks of parental leave at full pay for every parent, followed by a "
        "phased return over a month.",
        "Pension: we match your contributions up to 6% of your salary, and the plan stays "
        "yours if you leave.",
        "Equipment: a laptop of your choice, a second screen, and an allowance for a good "
        "desk and chair.",
        "Wellbeing: a monthly allowance for a gym, a sports club or therapy, spent as you see fit.",
        "Together: two company-wide offsites a year with travel and stay paid, and a team "
        "budget for dinners in between.",
        "Giving back: two paid volunteering days a year and matched donations to a charity "
        "you choose.",
        "Getting here: a public-transport pass or a bike-leasing scheme, whichever suits "
        "your commute.",
        "Ownership: stock options for everyone who joins, with the terms explained in plain "
        "language before you sign.",
    ),
    "vi": (
        "Lương tháng 13 và thưởng theo kết quả công việc, xét hai lần mỗi năm dựa trên mục "
        "tiêu của nhóm và cá nhân.",
        "Bảo hiểm sức khoẻ cao cấp cho nhân viên ngay từ ngày đầu tiên, có thể mở rộng cho "
        "vợ/chồng và con với mức phí ưu đãi.",
        "Đánh giá và điều chỉnh lương định kỳ theo năng lực, với tiêu chí được công bố rõ "
        "ràng cho từng cấp bậc.",
        "15 ngày phép mỗi năm, thêm một ngày nghỉ sinh nhật và lịch nghỉ Tết dài theo thông "
        "báo của công ty.",
        "Ngân sách học tập riêng cho từng người: khoá học trực tuyến, chứng chỉ quốc tế và "
        "sách chuyên môn đều được công ty chi trả.",
        "Được cấp laptop cấu hình cao, màn hình phụ và ghế công thái học ngay từ ngày đầu đi làm.",
        "Du lịch công ty hằng năm, team building mỗi quý và tiệc cuối năm có cả gia đình "
        "nhân viên tham dự.",
        "Đóng đầy đủ bảo hiểm xã hội, bảo hiểm y tế và bảo hiểm thất nghiệp trên toàn bộ mức "
        "lương thực nhận.",
        "Phụ cấp ăn trưa, gửi xe và điện thoại hằng tháng.",
        "Khám sức khoẻ định kỳ hằng năm tại bệnh viện quốc tế.",
        "Quà tặng vào các dịp lễ, Tết, sinh nhật và hỗ trợ khi nhân viên có việc hiếu hỉ.",
    ),
    "de": (
        "Gesundheit: Zuschuss zur privaten Zusatzversicherung und ein monatliches Budget für "
        "Sport, etwa über einen Firmenfitness-Anbieter.",
        "Urlaub: 30 Tage im Jahr, dazu frei am 24. und 31. Dezember und ein Sabbatical nach "
        "Absprache.",
        "Weiterbildung: ein persönliches Budget für Kurse, Bücher und Konferenzen und zwei "
        "zusätzliche Lerntage pro Jahr.",
        "Familie: flexible Arbeitszeitmodelle für Eltern, ein Zuschuss zur Kinderbetreuung "
        "und ein begleiteter Wiedereinstieg nach der Elternzeit.",
        "Altersvorsorge: Wir zahlen 20 % mehr in deine betriebliche Altersvorsorge ein, als "
        "gesetzlich vorgeschrieben ist.",
        "Mobilität: Deutschlandticket oder Dienstrad-Leasing, ganz wie es zu deinem "
        "Arbeitsweg passt.",
        "Ausstattung: Laptop nach Wahl, ein zweiter Bildschirm und ein Zuschuss für einen "
        "guten Schreibtisch und Stuhl.",
        "Miteinander: zwei Offsites im Jahr mit bezahlter Reise und Unterkunft und "
        "regelmäßige Teamabende.",
        "Beteiligung: virtuelle Anteile für alle Mitarbeitenden, mit verständlich erklärten "
        "Bedingungen.",
        "Verpflegung: ein Zuschuss zum Mittagessen an jedem Arbeitstag über eine Essenskarte.",
        "Auszeit: nach Absprache bis zu drei Monate unbezahlter Urlaub, mit garantierter "
        "Rückkehr in dein Team.",
    ),
    "fr": (
        "Santé : une mutuelle haut de gamme prise en charge à 100 % pour vous et vos ayants "
        "droit, dès le premier jour.",
        "Congés : 25 jours de congés payés, des RTT et une journée offerte pour votre "
        "anniversaire.",
        "Formation : un budget personnel pour des cours, des livres et des conférences, et "
        "deux jours par an consacrés à l'apprentissage.",
        "Repas : une carte titres-restaurant créditée chaque mois, prise en charge à 60 % par "
        "l'employeur.",
        "Transport : 50 % de l'abonnement de transport remboursé, ou le forfait mobilités "
        "durables si vous venez à vélo.",
        "Équipement : l'ordinateur de votre choix, un second écran et une prime pour aménager "
        "votre poste de travail.",
        "Parentalité : un congé second parent allongé et entièrement rémunéré, et des "
        "horaires aménagés au retour.",
        "Épargne salariale : un accord d'intéressement et un plan d'épargne entreprise abondé.",
        "Vie d'équipe : un séminaire annuel, des déjeuners d'équipe réguliers et un budget "
        "pour les projets associatifs de chacun.",
        "Bien-être : l'accès à une plateforme de sport et des consultations de psychologue "
        "prises en charge.",
        "Congé sabbatique : jusqu'à trois mois sans solde, avec un retour garanti dans votre "
        "équipe.",
    ),
}
# More of "how we work", after HOW_WE_WORK.
HOW_MORE: dict[Language, tuple[str, ...]] = {
    "en": (
        "Most of our communication is written and asynchronous. Each team posts a short "
        "weekly update, we record walkthroughs instead of calling meetings, and two "
        "afternoons a week are kept free of meetings so people can focus.",
        "We measure outcomes, not hours. Each cycle starts with a one-page pitch that names "
        "the problem and how we will know it is solved, and at the end we look at the "
        "numbers together, including when they disappoint us.",
        "Quality is everyone's job. The people who build a feature watch it once it is live "
        "and are the first to hear when it misbehaves, and the top issues raised by our "
        "support colleagues are fixed before anything new is started.",
        "We keep meetings few and short. A weekly team sync, a fortnightly demo that anyone "
        "in the company may join, and a monthly all-hands with an open question round are "
        "the only fixed dates in the calendar.",
    ),
    "vi": (
        "Mỗi nhóm có buổi họp ngắn đầu ngày và buổi nhìn lại vào cuối mỗi chu kỳ hai tuần để "
        "cùng cải thiện cách làm việc.",
        "Chúng tôi đề cao sự chủ động: mỗi thành viên được đề xuất giải pháp, trình bày trước "
        "nhóm và theo sát công việc cho đến khi sản phẩm đến tay khách hàng.",
        "Công ty hạn chế làm thêm giờ. Khi dự án cần tăng ca, thời gian làm thêm được trả "
        "lương đầy đủ theo quy định của pháp luật.",
        "Quản lý trực tiếp gặp riêng từng thành viên hai tuần một lần để trao đổi về công "
        "việc, khó khăn và mục tiêu phát triển.",
        "Mọi đề xuất thay đổi đều được viết ngắn gọn và chia sẻ để cả nhóm góp ý; phần lớn "
        "quyết định được đưa ra trong vài ngày.",
    ),
    "de": (
        "Wir kommunizieren überwiegend schriftlich und asynchron: Jedes Team schreibt ein "
        "kurzes Wochenupdate, und zwei Nachmittage pro Woche bleiben frei von Terminen.",
        "Qualität ist Teamsache. Wer ein Feature baut, beobachtet es auch im Betrieb, und die "
        "wichtigsten Anliegen aus dem Support werden erledigt, bevor wir Neues beginnen.",
        "Wir messen Ergebnisse, nicht Stunden. Überstunden sind die Ausnahme und werden in "
        "Freizeit ausgeglichen.",
        "Feste Termine gibt es wenige: ein wöchentliches Team-Meeting, eine Demo alle zwei "
        "Wochen, zu der alle kommen dürfen, und eine monatliche Fragerunde mit der "
        "Geschäftsführung.",
        "Wer etwas ändern möchte, schreibt einen kurzen Vorschlag. Dafür braucht es keine "
        "Erlaubnis, nur Leserinnen und Leser, und die meisten Entscheidungen fallen "
        "innerhalb weniger Tage.",
    ),
    "fr": (
        "Nous communiquons surtout par écrit et de manière asynchrone : chaque équipe publie "
        "un point hebdomadaire, et deux après-midi par semaine restent libres de toute "
        "réunion.",
        "La qualité est l'affaire de tous. La personne qui construit une fonctionnalité la "
        "suit aussi en production, et les remontées du support passent avant tout nouveau "
        "chantier.",
        "Nous mesurons les résultats, pas les heures. Les soirées et les week-ends vous "
        "appartiennent.",
        "Les rendez-vous fixes sont peu nombreux : un point d'équipe hebdomadaire, une démo "
        "toutes les deux semaines ouverte à tous et une réunion mensuelle avec la direction, "
        "questions libres comprises.",
        "Toute personne qui veut changer quelque chose rédige une courte proposition. Elle n'a "
        "besoin d'aucune autorisation, seulement de lecteurs, et la plupart des décisions "
        "sont prises en quelques jours.",
    ),
}
TOOLS: dict[Language, tuple[str, ...]] = {
    "en": (
        "Linear for planning and tracking work, with one board per team.",
        "A written handbook where every process, from expense claims to incident reviews, "
        "is documented and open to edits.",
        "Loom for short recorded walkthroughs, so a demo never needs a meeting.",
        "Miro for workshops and the occasional whiteboard session.",
        "A password manager and single sign-on for everything else.",
        "A laptop that is set up before your first day, with a short checklist instead of "
        "a long wiki page.",
        "A shared calendar of everyone's time off, so nobody has to ask who is around.",
    ),
    "vi": (
        "Bảng quản lý công việc chung cho cả nhóm, cập nhật hằng ngày.",
        "Tài liệu nội bộ được viết và lưu trữ tập trung, ai cũng có thể đọc và góp ý.",
        "Ứng dụng nhắn tin nội bộ cho trao đổi hằng ngày; mọi cuộc họp đều có biên bản.",
        "Máy tính được cài đặt sẵn trước ngày đầu tiên đi làm.",
        "Hệ thống đăng nhập một lần cho mọi công cụ của công ty.",
        "Lịch nghỉ phép chung của cả nhóm để mọi người dễ dàng sắp xếp công việc.",
    ),
    "de": (
        "Linear für Planung und Aufgaben, mit einem Board pro Team.",
        "Ein schriftliches Handbuch, in dem jeder Prozess von der Reisekostenabrechnung bis "
        "zur Störungsanalyse beschrieben ist.",
        "Loom für kurze aufgezeichnete Vorführungen statt zusätzlicher Meetings.",
        "Miro für Workshops und gemeinsames Skizzieren.",
        "Ein Laptop, der vor deinem ersten Tag eingerichtet ist.",
        "Ein Passwortmanager und eine zentrale Anmeldung für alle anderen Werkzeuge.",
        "Ein gemeinsamer Abwesenheitskalender, damit niemand fragen muss, wer gerade da ist.",
    ),
    "fr": (
        "Linear pour planifier et suivre le travail, avec un espace par équipe.",
        "Un manuel interne où chaque processus, des notes de frais aux analyses d'incident, "
        "est décrit et modifiable par tous.",
        "Loom pour de courtes vidéos explicatives plutôt que des réunions supplémentaires.",
        "Miro pour les ateliers et les séances de réflexion.",
        "Un ordinateur configuré avant votre premier jour.",
        "Un gestionnaire de mots de passe et une connexion unique pour tous les autres outils.",
        "Un calendrier partagé des absences, pour que personne n'ait à demander qui est là.",
    ),
}
GROWTH: dict[Language, tuple[str, ...]] = {
    "en": (
        "Every job at {company} has a published career ladder that describes what the next "
        "level looks like. Promotions are decided twice a year by a panel that includes "
        "people from outside your team, so nobody's progress depends on one manager's "
        "opinion.",
        "You can grow as a specialist or as a manager, and both paths pay the same at the "
        "same level. Moving between teams is encouraged, and most moves start with a "
        "conversation in a one-to-one.",
        "Each of us has a mentor outside the reporting line and a learning plan written "
        "together with our manager. The plan is reviewed every quarter and kept separate "
        "from performance reviews.",
        "We promote from within whenever we can: open jobs are shared inside {company} a "
        "week before they are published, and most of our leads were promoted rather than "
        "hired.",
    ),
    "vi": (
        "Lộ trình thăng tiến được công bố rõ ràng cho từng vị trí; việc xét nâng bậc diễn ra "
        "hai lần mỗi năm với hội đồng đánh giá gồm cả thành viên ngoài nhóm.",
        "Mỗi nhân viên có người hướng dẫn riêng và kế hoạch học tập được xây dựng cùng quản "
        "lý, xem lại sau mỗi quý.",
        "Bạn có thể phát triển theo hướng chuyên gia hoặc quản lý, và được khuyến khích luân "
        "chuyển giữa các nhóm để hiểu sâu hơn về sản phẩm.",
        "Các vị trí trống luôn được thông báo nội bộ trước khi tuyển bên ngoài, và phần lớn "
        "trưởng nhóm hiện nay được đề bạt từ bên trong.",
    ),
    "de": (
        "Für jede Stelle bei {company} gibt es einen veröffentlichten Karrierepfad. Über "
        "Beförderungen entscheidet zweimal im Jahr ein Gremium, in dem auch Menschen aus "
        "anderen Teams sitzen.",
        "Du kannst dich als Fachexpertin oder Fachexperte oder als Führungskraft "
        "weiterentwickeln; beide Wege werden auf derselben Stufe gleich bezahlt.",
        "Alle haben eine Mentorin oder einen Mentor außerhalb der eigenen Berichtslinie und "
        "einen Lernplan, den wir jedes Quartal gemeinsam anschauen.",
        "Wann immer es geht, besetzen wir Stellen aus den eigenen Reihen: Offene Stellen "
        "sehen alle bei {company} eine Woche vor der Veröffentlichung.",
    ),
    "fr": (
        "Chaque poste chez {company} dispose d'une grille d'évolution publiée. Les promotions "
        "sont décidées deux fois par an par un comité qui inclut des personnes extérieures à "
        "votre équipe.",
        "Vous pouvez évoluer comme expert·e ou comme manager : les deux parcours sont "
        "rémunérés de la même manière à niveau égal.",
        "Chacun·e a un·e mentor·e en dehors de sa ligne hiérarchique et un plan de formation "
        "revu chaque trimestre avec son manager.",
        "Nous privilégions la promotion interne : les postes ouverts sont partagés chez "
        "{company} une semaine avant leur publication, et la plupart de nos responsables ont "
        "été promus plutôt que recrutés.",
    ),
}
# The hiring process step by step, in place of PROCESS in a long posting.
PROCESS_STEPS: dict[Language, tuple[str, ...]] = {
    "en": (
        "Apply with your CV or a link to your profile. A cover letter is optional, and a "
        "person reads every application.",
        "A 30-minute call with someone from our recruiting team about the job, your "
        "questions and what you are looking for next.",
        "A conversation with the hiring manager about work you are proud of and how you "
        "approach problems, with no trick questions.",
        "A practical exercise that takes no more than two hours, paid at our hourly rate, "
        "then a discussion of your solution with two future teammates.",
        "A final conversation with someone from the leadership team, then a decision within "
        "a week and feedback whether the answer is yes or no.",
    ),
    "vi": (
        "Gửi CV qua hệ thống; bộ phận tuyển dụng phản hồi trong vòng 3 ngày làm việc.",
        "Trao đổi qua điện thoại khoảng 30 phút về công việc và mong muốn của bạn.",
        "Phỏng vấn chuyên môn với trưởng nhóm {department}, có thể kèm một bài tập ngắn.",
        "Gặp gỡ giám đốc bộ phận để trao đổi về lộ trình phát triển.",
        "Nhận thư mời làm việc và thống nhất ngày bắt đầu trong vòng 5 ngày làm việc.",
    ),
    "de": (
        "Du bewirbst dich mit Lebenslauf oder Profil-Link, ein Anschreiben ist freiwillig, "
        "und jede Bewerbung liest ein Mensch.",
        "Ein 30-minütiges Kennenlernen per Video mit unserem Recruiting-Team.",
        "Ein Fachgespräch mit der künftigen Teamleitung über Arbeit, auf die du stolz bist, "
        "ohne Fangfragen.",
        "Eine Praxisaufgabe von höchstens zwei Stunden, die wir bezahlen, und ein Gespräch "
        "darüber mit zwei künftigen Kolleg:innen.",
        "Eine Entscheidung innerhalb einer Woche, mit Feedback, egal wie sie ausfällt.",
    ),
    "fr": (
        "Vous postulez avec votre CV ou un lien vers votre profil ; la lettre de motivation "
        "est facultative et chaque candidature est lue par une personne.",
        "Un premier échange de 30 minutes avec notre équipe recrutement sur le poste et vos "
        "attentes.",
        "Un entretien avec votre futur manager autour d'un projet dont vous êtes fier·e, "
        "sans questions pièges.",
        "Un cas pratique de deux heures maximum, rémunéré, puis une discussion avec deux "
        "futurs collègues.",
        "Une réponse sous une semaine, avec un retour détaillé quelle que soit la décision.",
    ),
}
PROCESS_NOTES: dict[Language, tuple[str, ...]] = {
    "en": (
        "The whole process usually takes three to four weeks. If you need an adjustment at "
        "any stage, such as extra time, a different format or an interpreter, tell your "
        "recruiter and we will arrange it.",
        "We do not ask for references before an offer, and we never ask what you earn today. "
        "If the timing does not suit you, say so: we would rather move a call than lose a "
        "good candidate.",
        "Not sure you match every line above? Apply anyway. Lists like these describe the "
        "team we hope to build, and some of our best colleagues did not tick every box.",
    ),
    "vi": (
        "Toàn bộ quy trình thường kéo dài từ hai đến ba tuần. Mọi thông tin của ứng viên đều "
        "được bảo mật.",
        "Nếu chưa đáp ứng hết các yêu cầu trên, bạn vẫn có thể ứng tuyển: chúng tôi đánh giá "
        "cao tinh thần cầu tiến và khả năng học hỏi.",
        "Nếu cần hỗ trợ riêng trong quá trình phỏng vấn, chẳng hạn thêm thời gian hay một "
        "hình thức khác, bạn chỉ cần báo cho bộ phận tuyển dụng.",
    ),
    "de": (
        "Der gesamte Prozess dauert in der Regel drei bis vier Wochen. Wenn du in einem "
        "Schritt etwas brauchst, etwa mehr Zeit oder ein anderes Format, sag uns Bescheid.",
        "Du erfüllst nicht jeden Punkt oben? Bewirb dich trotzdem: Wir suchen Menschen, keine "
        "Checklisten.",
        "Referenzen fragen wir erst nach einem Angebot an, und nach deinem aktuellen Gehalt "
        "fragen wir nie.",
    ),
    "fr": (
        "Le processus dure en général trois à quatre semaines. Si vous avez besoin d'un "
        "aménagement à une étape, dites-le-nous et nous l'organiserons.",
        "Vous ne cochez pas toutes les cases ? Postulez quand même : nous recrutons des "
        "personnes, pas des listes de critères.",
        "Nous ne demandons de références qu'après une offre, et jamais votre salaire actuel.",
    ),
}
_AND = {"en": "and", "vi": "và", "de": "und", "fr": "et"}


def _joined(items: tuple[str, ...], language: Language) -> str:
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {_AND[language]} {items[-1]}"


def experience_line(facts: Facts, skill: str) -> str | None:
    if facts.experience is None:
        return None
    low, high = facts.experience
    if low == 0:
        return NO_EXPERIENCE[facts.language]
    if high is not None:
        return EXPERIENCE_RANGE[facts.language].format(n=low, m=high)
    template = EXPERIENCE[facts.language][facts.experience_form]
    return template.format(n=low, skill=skill)


def describe(
    facts: Facts,
    *,
    company: str,
    title: str,
    department: str,
    skills: tuple[str, ...],
    salary_range: tuple[str, str] | None,
    edits: int,
) -> list[Block]:
    """The posting's description, block by block."""

    def build(extra: dict[str, list[Block]]) -> list[Block]:
        return _assemble(
            facts,
            company=company,
            title=title,
            department=department,
            skills=skills,
            salary_range=salary_range,
            edits=edits,
            extra=extra,
        )

    if facts.long is None:
        return build({})
    fill = {"company": company, "title": title, "department": department}
    return _grow(facts.long, _long_units(facts, facts.long, fill), build)


def _long_units(facts: Facts, long: Long, fill: dict[str, str]) -> dict[str, list[list[Block]]]:
    """Each optional section of a long posting as the units it grows by, in order: a
    unit is kept whole (a heading comes with its first items, "your first 90 days" with
    all three stages)."""
    lang = facts.language
    heads = LONG_HEADINGS[lang]

    def say(template: str) -> str:
        return template.format(n=long.team_size, **fill)

    stages = [say(text) for text in FIRST_DAYS[lang][long.first_days]]
    tools = [Block("li", say(TOOLS[lang][i])) for i in long.tools]
    growth = [Block("p", say(GROWTH[lang][i])) for i in long.growth]
    return {
        "team": [[Block("p", say(TEAM[lang][i]))] for i in long.team],
        "first_days": [[Block("h", heads["first_days"]), *(Block("li", text) for text in stages)]],
        "how": [[Block("p", say(HOW_MORE[lang][i]))] for i in long.how],
        "tools": [[Block("h", heads["tools"]), *tools[:2]], *([b] for b in tools[2:])],
        "growth": [[Block("h", heads["growth"]), growth[0]], *([b] for b in growth[1:])],
        "process_notes": [[Block("p", say(PROCESS_NOTES[lang][i]))] for i in long.process_notes],
    }


def _grow(
    long: Long,
    units: dict[str, list[list[Block]]],
    build: Callable[[dict[str, list[Block]]], list[Block]],
) -> list[Block]:
    """The long posting with as much of its optional sections as fits its drawn length:
    sections in their drawn order, each unit by unit until one would pass the length."""
    limit = min(long.target, MAX_TEXT_BYTES)
    kept: dict[str, list[Block]] = {}
    for section in long.order:
        for unit in units[section]:
            trial = {**kept, section: [*kept.get(section, []), *unit]}
            if not _fits(build(trial), limit):
                break
            kept = trial
    return build(kept)


def text_size(blocks: list[Block]) -> int:
    """The description's length as text formats carry it: UTF-8 bytes of its lines."""
    return len("\n".join(as_text(blocks)).encode())


def _fits(blocks: list[Block], limit: int = MAX_TEXT_BYTES) -> bool:
    return text_size(blocks) <= limit and len(as_html(blocks, html.escape)) <= MAX_HTML_CHARS


def _assemble(
    facts: Facts,
    *,
    company: str,
    title: str,
    department: str,
    skills: tuple[str, ...],
    salary_range: tuple[str, str] | None,
    edits: int,
    extra: dict[str, list[Block]],
) -> list[Block]:
    """The blocks in the order postings put them; `extra`: a long posting's optional
    sections, by name (OPTIONAL)."""
    lang = facts.language
    heads = HEADINGS[lang]
    long = facts.long
    blocks = [
        Block(
            "p",
            INTRO[lang].format(
                company=company,
                a="an" if title[:1] in "AEIOU" else "a",
                title=title,
                department=department,
            ),
        ),
        Block("p", SKILLS_LINE[lang].format(skills=", ".join(skills))),
        Block("p", ROLE[lang].format(department=department, title=title)),
        Block("h", heads["about"]),
        Block("p", " ".join(ABOUT[lang][i].format(company=company) for i in facts.about)),
        *extra.get("team", []),
        Block("h", heads["do"]),
        *(Block("li", DUTY_TEXT[lang][i]) for i in facts.responsibilities),
        *extra.get("first_days", []),
        Block("h", heads["need"]),
    ]
    if line := experience_line(facts, skills[0]):
        blocks.append(Block("li", line))
    blocks.append(Block("li", SKILLS_NEEDED[lang].format(skills=_joined(skills[1:], lang))))
    if facts.education is not None:
        blocks.append(Block("li", EDUCATION[lang][facts.education]))
    blocks += [Block("h", heads["nice"]), *(Block("li", NICE[lang][i]) for i in facts.nice)]
    benefits = (
        [PERKS[lang][i] for i in long.perks]
        if long
        else [BENEFITS[lang][i] for i in facts.benefits]
    )
    blocks += [Block("h", heads["benefits"]), *(Block("li", t) for t in benefits)]
    if facts.long_form or long:
        blocks += [Block("h", heads["how"]), *(Block("p", t) for t in HOW_WE_WORK[lang])]
        blocks += [*extra.get("how", []), *extra.get("tools", []), *extra.get("growth", [])]
    if facts.work_mode:
        blocks.append(Block("p", WORK_MODE[lang][facts.work_mode]))
    if salary_range:
        lo, hi = salary_range
        blocks += [
            Block("h", heads["pay"]),
            Block("p", SALARY[lang][facts.salary_form].format(lo=lo, hi=hi)),
        ]
    steps = PROCESS_STEPS[lang] if long else PROCESS[lang]
    blocks += [
        Block("h", heads["process"]),
        *(Block("li", t.format(department=department)) for t in steps),
    ]
    blocks += extra.get("process_notes", [])
    blocks.append(Block("p", EEO[lang][facts.eeo_form].format(company=company)))
    if edits:
        blocks.append(Block("p", UPDATE[lang].format(n=edits)))
    return blocks


def as_text(blocks: list[Block]) -> list[str]:
    """Paragraphs for text formats: list items as "- " lines, as plain-text boards show them."""
    return [f"- {b.text}" if b.kind == "li" else b.text for b in blocks]


def as_html(blocks: list[Block], escape: Callable[[str], str]) -> str:
    """<h3>, <p> and <ul><li> as ATS rich-text editors write them."""
    out: list[str] = []
    in_list = False
    for block in blocks:
        if block.kind == "li" and not in_list:
            out.append("<ul>")
            in_list = True
        elif block.kind != "li" and in_list:
            out.append("</ul>")
            in_list = False
        tag = {"h": "h3", "p": "p", "li": "li"}[block.kind]
        out.append(f"<{tag}>{escape(block.text)}</{tag}>")
    if in_list:
        out.append("</ul>")
    return "".join(out)
