"""What a sandbox posting says: descriptions of real length and structure.

A real posting runs 1.5-8 KB: who the company is, what the job does, what it needs
(years of experience, education), what would be nice, the benefits, the pay in one of
the ways postings state it, and an equal-opportunity line. This module writes that, in
English, Vietnamese, German or French, deterministically from the job's own stream of
randomness, so every format that renders the job says the same thing.

A description is a list of blocks, each a heading, a paragraph or a list item, so HTML
formats render <h3>, <p> and <ul> as real boards do and text formats render lines.
"""

from __future__ import annotations

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
    long_form: bool  # a few postings carry a long "how we work" section (up to ~8 KB)
    salary_form: int
    eeo_form: int


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
    lang = facts.language
    heads = HEADINGS[lang]
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
        Block("h", heads["do"]),
        *(Block("li", DUTY_TEXT[lang][i]) for i in facts.responsibilities),
        Block("h", heads["need"]),
    ]
    if line := experience_line(facts, skills[0]):
        blocks.append(Block("li", line))
    blocks.append(Block("li", SKILLS_NEEDED[lang].format(skills=_joined(skills[1:], lang))))
    if facts.education is not None:
        blocks.append(Block("li", EDUCATION[lang][facts.education]))
    blocks += [Block("h", heads["nice"]), *(Block("li", NICE[lang][i]) for i in facts.nice)]
    blocks += [
        Block("h", heads["benefits"]),
        *(Block("li", BENEFITS[lang][i]) for i in facts.benefits),
    ]
    if facts.long_form:
        blocks += [Block("h", heads["how"]), *(Block("p", t) for t in HOW_WE_WORK[lang])]
    if facts.work_mode:
        blocks.append(Block("p", WORK_MODE[lang][facts.work_mode]))
    if salary_range:
        lo, hi = salary_range
        blocks += [
            Block("h", heads["pay"]),
            Block("p", SALARY[lang][facts.salary_form].format(lo=lo, hi=hi)),
        ]
    blocks += [Block("h", heads["process"]), *(Block("li", t) for t in PROCESS[lang])]
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
