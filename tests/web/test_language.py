"""A posting's language on its title and description (serving_sync.language): what the text
shows plainly, else nothing, so the page's English stands."""

from __future__ import annotations

import httpx
import pytest

from serving_sync.language import detected_language, posting_language

ENGLISH = (
    "We are looking for a data engineer to join our team. You will work with the "
    "platform team and own the pipelines that our customers use every day."
)
GERMAN = (
    "Wir suchen eine Datenengineerin für unser Team in Berlin. Sie arbeiten mit der "
    "Plattform und sind für die Datenpipelines verantwortlich, die unsere Kunden nutzen."
)
FRENCH = (
    "Nous recherchons un ingénieur des données pour rejoindre notre équipe. Vous "
    "travaillerez avec les équipes produit et serez responsable des pipelines."
)
VIETNAMESE = (
    "Công ty cần tuyển kế toán trưởng có kinh nghiệm. Ứng viên sẽ phụ trách sổ sách, "
    "báo cáo thuế và làm việc với các phòng ban."
)


@pytest.mark.parametrize(
    ("title", "description", "expected"),
    [
        ("Data Engineer", ENGLISH, None),  # English: the page's own language
        ("Dateningenieur (m/w/d)", GERMAN, "de"),
        ("Ingénieur des données", FRENCH, "fr"),
        ("Kế toán trưởng", VIETNAMESE, "vi"),
        ("Kế toán trưởng", None, "vi"),  # a title alone, when its letters say it
        ("วิศวกรข้อมูล", "ทีมของเรากำลังมองหาวิศวกรข้อมูล", "th"),
        ("Data Engineer", None, None),  # too few words to tell
        ("", "", None),
        (None, None, None),
        # English with a Vietnamese address is English.
        ("Data Engineer", ENGLISH + " Our office is in Hồ Chí Minh City.", None),
        # Half German, half French: unclear, so nothing is claimed.
        ("Engineer", GERMAN + " " + FRENCH, None),
    ],
)
def test_the_language_is_named_only_when_the_text_shows_it(title, description, expected) -> None:
    assert posting_language(title, description) == expected


def test_the_sync_detects_english_too_for_its_stemmer() -> None:
    # The page leaves English unnamed; the sync names it, to stem its words in English.
    assert detected_language("Data Engineer", ENGLISH) == "en"
    assert detected_language("Dateningenieur (m/w/d)", GERMAN) == "de"
    assert detected_language("Data Engineer", None) is None  # too few words to tell


def test_a_vietnamese_posting_says_so_on_its_title_and_description(web, seeded) -> None:
    vietnamese = next(r for r in seeded if r["title"] == "Kế toán trưởng")
    english = next(r for r in seeded if r["title"] == "Data Engineer")
    page = httpx.get(f"{web.url}/jobs/{vietnamese['id']}", timeout=10).text
    assert '<h1 lang="vi">Kế toán trưởng</h1>' in page
    assert '<div class="description" lang="vi">' in page
    assert '<html lang="en">' in page  # the rest of the page stays English
    page = httpx.get(f"{web.url}/jobs/{english['id']}", timeout=10).text
    assert "<h1>Data Engineer</h1>" in page
    results = httpx.get(f"{web.url}/", params={"q": "ke toan"}, timeout=10).text
    assert '<h2 lang="vi"><a href=' in results
