"""The pages in English and Vietnamese (web/i18n.py): the language chosen by `?lang=`,
then the cookie the switch sets, then Accept-Language; dates and numbers written the
language's way; links that keep the choice; the API in English whatever is asked; and
the catalogue complete and in step with the templates and the code."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from jinja2 import Environment

from serving_sync.companies import slug
from serving_sync.problems import TEMPLATES as REFUSALS
from serving_sync.problems import one_of
from serving_sync.value_rules import rule
from web import i18n, navigation, present

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "web" / "locale"
TEMPLATES = ROOT / "web" / "templates"
VI = {"Accept-Language": "vi-VN,vi;q=0.9,en;q=0.5"}


def get(url: str, **kwargs) -> httpx.Response:
    return httpx.get(url, timeout=10, **kwargs)


def html_lang(page: str) -> str:
    found = re.search(r'<html lang="([^"]+)">', page)
    assert found, page[:200]
    return found.group(1)


def vary(response: httpx.Response) -> set[str]:
    return {name.strip() for name in response.headers.get("Vary", "").split(",")}


def hrefs(page: str) -> list[str]:
    return [h.replace("&amp;", "&") for h in re.findall(r'href="([^"]+)"', page)]


# ---------------------------------------------------------------- choosing the language


@pytest.mark.parametrize(
    ("header", "chosen"),
    [
        ("vi-VN,vi;q=0.9,en;q=0.8", "vi"),
        ("en-US,en;q=0.9,vi;q=0.8", "en"),
        ("fr-CH, fr;q=0.9, vi;q=0.8, en;q=0.7", "vi"),  # the first the pages speak
        ("en;q=0.5, vi", "vi"),  # q-values, not the order, rank them
        ("vi;q=0, en", "en"),  # q=0: "not this"
        ("vi;q=0", "en"),
        ("*", "en"),
        ("de, *;q=0.5", "en"),
        ("", "en"),
        (None, "en"),
        ("vi;q=abc, en;q=0.1", "en"),  # a malformed q counts as 0
        ("not a language tag!!, vi", "vi"),
    ],
)
def test_accept_language_is_read_by_its_q_values(header: str | None, chosen: str) -> None:
    assert i18n.negotiate(header) == chosen


def test_the_url_wins_then_the_cookie_then_the_browser() -> None:
    assert i18n.choose({"lang": ["en"]}, "vi", "vi") == i18n.Choice("en", from_url=True)
    assert i18n.choose({}, "vi", "en") == i18n.Choice("vi")
    assert i18n.choose({}, "xx", "vi") == i18n.Choice("vi")  # an unknown cookie is ignored
    assert i18n.choose({"lang": [""]}, None, "vi") == i18n.Choice("vi")  # empty: not given
    with pytest.raises(i18n.InvalidLang, match="must be one of en, vi"):
        i18n.choose({"lang": ["fr"]}, None, None)
    with pytest.raises(i18n.InvalidLang, match="at most once"):
        i18n.choose({"lang": ["vi", "en"]}, None, None)


def test_a_browser_asking_for_vietnamese_gets_the_pages_in_vietnamese(web, seeded) -> None:
    page = get(f"{web.url}/", headers=VI)
    assert page.status_code == 200
    assert html_lang(page.text) == "vi"
    assert "<h1>Tìm việc làm</h1>" in page.text
    assert "Bộ lọc" in page.text
    assert "Áp dụng bộ lọc" in page.text
    assert "việc làm phù hợp" in page.text
    assert "Search jobs" not in page.text
    # The answer depends on the header and the cookie: caches must keep them apart.
    assert {"HX-Request", "Accept-Language", "Cookie"} <= vary(page)
    english = get(f"{web.url}/", headers={"Accept-Language": "en-GB"})
    assert html_lang(english.text) == "en"
    assert "<h1>Search jobs</h1>" in english.text


def test_every_page_speaks_vietnamese_when_asked(web, seeded) -> None:
    pages = {
        "/jobs/1001": "Mô tả công việc",
        "/jobs/999": "Việc làm này đã đóng",
        "/jobs/424242": "Không tìm thấy việc làm",
        "/stats": "Thống kê",
        "/companies/acme": "Việc làm đang tuyển",
        "/no/such/page": "Không tìm thấy trang",
        "/?salary_min=5": "Yêu cầu không hợp lệ",
        "/docs": "Tài liệu API",
    }
    for path, words in pages.items():
        page = get(f"{web.url}{path}", headers=VI)
        assert html_lang(page.text) == "vi", path
        assert words in page.text, path


def test_lang_in_the_url_overrides_the_browser_and_sets_the_cookie(web, seeded) -> None:
    page = get(f"{web.url}/jobs/1001", params={"lang": "en"}, headers=VI)
    assert html_lang(page.text) == "en"
    assert "<h2>Description</h2>" in page.text
    cookie = page.headers["set-cookie"]
    assert cookie.startswith("lang=en;")
    assert "SameSite=lax" in cookie
    assert "Path=/" in cookie
    # The URL alone decides this answer.
    assert "HX-Request" in vary(page)
    assert not {"Accept-Language", "Cookie"} & vary(page)


def test_the_switch_persists_through_the_cookie(web, seeded) -> None:
    with httpx.Client(base_url=web.url, timeout=10) as browser:
        first = browser.get("/")
        assert html_lang(first.text) == "en"
        switch = re.search(r'<a class="lang-switch" href="([^"]+)"', first.text)
        assert switch
        assert switch.group(1) == "/?lang=vi"
        browser.get(switch.group(1).replace("&amp;", "&"))
        # Later pages without `lang`, even with a browser asking for English:
        later = browser.get("/stats", headers={"Accept-Language": "en"})
        assert html_lang(later.text) == "vi"
        assert "<h1>Thống kê</h1>" in later.text
        # And back: the English switch is a redirect to the short address, cookie set.
        back = browser.get("/?lang=en", follow_redirects=False)
        assert back.status_code == 303
        assert back.headers["location"] == "/"
        assert back.headers["set-cookie"].startswith("lang=en;")
        assert html_lang(browser.get("/jobs/1001").text) == "en"


def test_an_unknown_lang_is_refused_like_any_enumerated_parameter(web, seeded) -> None:
    page = get(f"{web.url}/", params={"q": "engineer", "lang": "fr"}, headers=VI)
    assert page.status_code == 422
    assert "<code>lang</code>" in page.text
    assert html_lang(page.text) == "vi"  # the refusal in the visitor's language
    assert "phải là một trong các giá trị en, vi" in page.text
    assert 'name="q" value="engineer"' in page.text  # the fix form keeps the search


def test_the_api_answers_in_english_whatever_is_asked(web, seeded) -> None:
    plain = get(f"{web.url}/api/jobs", params={"country": "VN", "group": "company"})
    asked = get(
        f"{web.url}/api/jobs",
        params={"country": "VN", "group": "company"},
        headers=VI,
        cookies={"lang": "vi"},
    )
    assert asked.status_code == 200
    assert asked.json() == plain.json()
    assert "set-cookie" not in asked.headers
    # The API has no language: `lang` is a parameter it does not take, named in its 422.
    for value in ("vi", "fr"):
        refused = get(f"{web.url}/api/jobs", params={"lang": value})
        assert refused.status_code == 422
        assert refused.json()["detail"][0]["loc"] == ["query", "lang"]
    missing = get(f"{web.url}/api/jobs/424242", headers=VI)
    assert missing.json() == {"detail": "no such job"}


# ---------------------------------------------------------------- links keep it


def test_links_and_forms_of_a_vietnamese_url_keep_lang(web, seeded) -> None:
    page = get(f"{web.url}/", params={"country": "VN", "limit": "2", "lang": "vi"})
    assert page.status_code == 200  # `lang=vi` is part of the short address
    assert '<input type="hidden" name="lang" value="vi">' in page.text
    switch = "/?country=VN&limit=2&lang=en"  # the language switch: to English
    assert switch in hrefs(page.text)
    links = [
        h
        for h in hrefs(page.text)
        if h.startswith(("/?", "/jobs/", "/companies/", "/stats", "/docs")) and h != switch
    ]
    assert links, page.text
    for link in links:
        assert parse_qs(urlsplit(link).query).get("lang") == ["vi"], link
    assert 'rel="next"' in page.text  # pagination was among them
    canonical = re.search(r'<link rel="canonical" href="([^"]+)">', page.text).group(1)
    assert canonical.endswith("/?country=VN&amp;limit=2&amp;lang=vi")
    # Without `lang` in the URL no link carries it (the switch and the hreflang
    # alternates, absolute, aside): the short address stays short, and the cookie or the
    # browser keeps the language.
    plain = get(f"{web.url}/", params={"country": "VN", "limit": "2"}, headers=VI)
    assert html_lang(plain.text) == "vi"
    relative = [h for h in hrefs(plain.text) if h.startswith("/")]
    assert [h for h in relative if "lang=" in h] == ["/?country=VN&limit=2&lang=en"]


_ALTERNATE = re.compile(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">')


def alternates(page: str) -> dict[str, str]:
    found = _ALTERNATE.findall(page)
    assert len(found) == len(dict(found)), found  # each language once
    return {lang: href.replace("&amp;", "&") for lang, href in found}


def test_every_page_names_itself_in_each_language_with_hreflang(web, seeded) -> None:
    job = next(r for r in seeded if r["status"] == "active")
    company = next(r["company"] for r in seeded if r["company"])
    paths = [
        "/?q=engineer&country=VN",
        f"/jobs/{job['id']}",
        f"/companies/{quote(slug(company), safe='')}",
        "/stats",
        "/no/such/page",
        "/?limit=500",  # a 422 page too
    ]
    for path in paths:
        for headers, lang_param in (({}, ""), (VI, ""), ({}, "vi")):
            url = web.url + path
            if lang_param:
                url += ("&" if "?" in path else "?") + "lang=" + lang_param
            found = alternates(get(url, headers=headers).text)
            # Whatever language this copy is in, the links are the same three.
            assert found == {"en": web.url + path, "vi": found["vi"], "x-default": web.url + path}
            assert parse_qs(urlsplit(found["vi"]).query)["lang"] == ["vi"], path
            assert found["vi"].replace("lang=vi", "").rstrip("?&") == web.url + path


def test_each_hreflang_address_answers_in_its_language(web, seeded) -> None:
    found = alternates(get(f"{web.url}/?q=engineer").text)
    # A crawler asks no language: the English address is English, the Vietnamese one
    # Vietnamese whatever the browser or the cookie ask.
    assert html_lang(get(found["en"]).text) == "en"
    vietnamese = get(found["vi"], headers={"Accept-Language": "en"}, cookies={"lang": "en"})
    assert html_lang(vietnamese.text) == "vi"


def test_a_vietnamese_job_page_is_its_own_canonical_address(web, seeded) -> None:
    job = next(r for r in seeded if r["status"] == "active")
    page = get(f"{web.url}/jobs/{job['id']}", params={"lang": "vi", "q": "engineer"})
    canonical = re.search(r'<link rel="canonical" href="([^"]+)">', page.text).group(1)
    assert canonical == f"{web.url}/jobs/{job['id']}?lang=vi"
    english = get(f"{web.url}/jobs/{job['id']}", params={"q": "engineer"}, headers=VI)
    assert f'<link rel="canonical" href="{web.url}/jobs/{job["id"]}">' in english.text


class _Attributes(HTMLParser):
    """Every element's attributes, as a browser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def attributes(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Attributes()
    parser.feed(page)
    return parser.found


# An attribute value ended by a quote and followed by a letter: a quote inside the text
# closed the attribute early.
_BROKEN_ATTRIBUTE = re.compile(r'="[^"]*"[^\s>/]')


def test_a_quote_in_a_translation_stays_inside_its_attribute(web, seeded) -> None:
    for headers, placeholder in (
        ({}, 'e.g. "data engineer" -senior'),
        (VI, 'vd: "kỹ sư dữ liệu" -senior'),
    ):
        page = get(f"{web.url}/", headers=headers).text
        search_box = next(a for tag, a in attributes(page) if a.get("id") == "q")
        assert search_box["placeholder"] == placeholder
    job = next(r for r in seeded if r["status"] == "active")
    for path in ("/", "/?q=engineer", f"/jobs/{job['id']}", "/stats", "/no/such/page"):
        for headers in ({}, VI):
            page = re.sub(r"(?s)<script.*?</script>", "", get(web.url + path, headers=headers).text)
            assert _BROKEN_ATTRIBUTE.findall(page) == [], path


def test_the_templates_gettext_escapes_the_text_and_its_arguments() -> None:
    env = Environment(extensions=["jinja2.ext.i18n"], autoescape=True)
    env.install_gettext_callables(i18n.escaped_gettext, i18n.escaped_ngettext, newstyle=True)
    source = """<i title="{{ _('say "hi" & <go>') }}">{{ _('%(w)s!', w=word) }}</i>"""
    rendered = env.from_string(source).render(word="<b>")
    assert rendered == '<i title="say &#34;hi&#34; &amp; &lt;go&gt;">&lt;b&gt;!</i>'
    assert attributes(rendered)[0][1]["title"] == 'say "hi" & <go>'


def test_english_in_the_url_is_the_default_and_redirects_to_the_short_address(web, seeded) -> None:
    found = get(f"{web.url}/", params={"q": "engineer", "lang": "en"}, follow_redirects=False)
    assert found.status_code == 303
    assert found.headers["location"] == "/?q=engineer"
    blank = get(f"{web.url}/", params={"q": "engineer", "lang": ""}, follow_redirects=False)
    assert blank.headers["location"] == "/?q=engineer"


def test_the_htmx_fragment_pushes_an_address_that_keeps_lang(web, seeded) -> None:
    fragment = get(
        f"{web.url}/", params={"country": "VN", "lang": "vi"}, headers={"HX-Request": "true"}
    )
    assert fragment.headers["HX-Push-Url"] == "/?country=VN&lang=vi"
    assert "Áp dụng bộ lọc" in fragment.text


def test_the_feed_of_a_vietnamese_search_says_its_language(web, seeded) -> None:
    feed = get(f"{web.url}/feed", params={"country": "VN", "lang": "vi"})
    assert '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="vi">' in feed.text
    assert "<title>jobharbor: Tìm việc làm</title>" in feed.text
    english = get(f"{web.url}/feed", params={"country": "VN"})
    assert 'xml:lang="en"' in english.text


# ---------------------------------------------------------------- dates and numbers


@pytest.fixture
def vietnamese():
    token = i18n.activate(i18n.Choice("vi"))
    yield
    i18n._current.reset(token)


NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def test_numbers_and_dates_are_written_the_vietnamese_way(vietnamese) -> None:
    assert present.number(1234567) == "1.234.567"
    assert present.percent(0.456) == "46%"
    assert present.day(datetime(2026, 11, 3, tzinfo=UTC)) == "3 thg 11, 2026"
    assert present.relative_age(NOW - timedelta(days=3), NOW) == "3 ngày trước"
    assert present.relative_age(NOW - timedelta(days=45), NOW) == "6 tuần trước"
    assert present.relative_age(NOW, NOW) == "hôm nay"
    job = {"salary_min": Decimal(50000), "salary_max": Decimal("60000.5"), "salary_currency": "VND"}
    assert (
        present.salary_text({**job, "salary_period": "month"}) == "50.000–60.000,50 VND mỗi tháng"
    )
    posted = {"posted_at": NOW - timedelta(days=3), "posted_precision": "day"}
    assert present.posted_text(posted, NOW) == "đăng 3 ngày trước (30 thg 11, 2026)"


def test_english_numbers_and_dates_read_as_before() -> None:
    assert present.number(1234567) == "1,234,567"
    assert present.day(date(2026, 11, 3)) == "3 Nov 2026"
    assert present.relative_age(NOW - timedelta(days=45), NOW) == "6 weeks ago"
    assert i18n.moment_utc(datetime(2026, 11, 30, 9, 30, tzinfo=UTC)) == "30 Nov 2026 09:30 UTC"
    hanoi = timezone(timedelta(hours=7))
    assert i18n.moment_utc(datetime(2026, 11, 30, 16, 30, tzinfo=hanoi)) == "30 Nov 2026 09:30 UTC"


def test_facet_values_read_capitalised_like_unknown_beside_them() -> None:
    """A filter list shows "Intern" above "Unknown", not "intern": every enumerated
    value a page lists starts with a capital, a known one or one the labels lack."""
    assert present.value_label("job_type", "intern") == "Intern"
    assert present.value_label("job_type", "new_grad") == "New grad"
    assert present.value_label("job_type", "apprentice") == "Apprentice"  # no label yet
    assert present.value_label("job_type", "unknown") == "Unknown"
    for group, values in present.VALUE_LABELS.items():
        for value in values:
            label = present.value_label(group, value)
            assert label[:1].isupper(), (group, value, label)


def test_a_month_of_the_stats_reads_as_a_month_in_each_language(vietnamese) -> None:
    assert present.value_label("month", "2026-12") == "tháng 12 năm 2026"
    assert present.value_label("month", "not-a-month") == "not-a-month"  # shown, not a 500
    i18n.activate(i18n.Choice("en"))
    assert present.value_label("month", "2026-12") == "December 2026"


def test_the_page_shows_dates_and_amounts_in_its_language(web, seeded) -> None:
    salaried = next(r for r in seeded if r.get("salary_min") and r["salary_min"] >= 1000)
    page = get(f"{web.url}/jobs/{salaried['id']}", headers=VI).text
    amount = f"{int(salaried['salary_min']):,}".replace(",", ".")
    assert amount in page, amount
    assert re.search(r"\d+ thg \d+, \d{4}", page)  # the day, the Vietnamese way
    english = get(f"{web.url}/jobs/{salaried['id']}").text
    assert f"{int(salaried['salary_min']):,}" in english


def test_refusals_are_translated_from_their_code_and_arguments(vietnamese) -> None:
    assert navigation.problem_text(one_of(("newest", "relevance"))) == (
        "phải là một trong các giá trị newest, relevance"
    )
    country = rule("country").problem("ZZ")
    assert country is not None
    assert navigation.problem_text(country) == (
        "'ZZ' không phải mã ISO 3166 alpha-2 viết hoa hoặc 'unknown'"
    )
    years = rule("experience_min").problem("old")
    assert years is not None
    assert navigation.problem_text(years) == (
        "'old' không có dạng N, N-M, N+ (số năm, 0..40) hoặc 'unknown'"
    )


def test_every_refusal_template_is_in_the_catalogue_and_translated() -> None:
    # A refusal added to serving_sync.problems without `make messages` and its
    # Vietnamese fails here (and in the completeness test): none can stay English.
    vietnamese = read(LOCALE / "vi" / "LC_MESSAGES" / "messages.po")
    assert set(REFUSALS.values()) <= catalog_ids(vietnamese)
    assert not set(REFUSALS.values()) & set(untranslated(vietnamese))


def test_a_refused_value_reads_in_the_page_language_and_the_api_keeps_english(web, seeded) -> None:
    params = {"q": "engineer", "experience_min": "old"}
    page = get(f"{web.url}/", params=params, headers=VI)
    assert page.status_code == 422
    assert "không có dạng N, N-M, N+ (số năm, 0..40)" in page.text
    api = get(f"{web.url}/api/jobs", params=params, headers=VI, cookies={"lang": "vi"})
    assert api.status_code == 422
    assert api.json() == {
        "detail": [
            {
                "loc": ["query", "experience_min"],
                "msg": "'old' is not N, N-M, N+ (years, 0..40) or 'unknown'",
                "type": "value_error",
            }
        ]
    }


def test_a_posting_in_english_says_so_on_a_vietnamese_page(vietnamese) -> None:
    from tests.web.test_language import ENGLISH, VIETNAMESE

    assert present.text_language("Data Engineer", ENGLISH) == "en"
    assert present.text_language("Kế toán trưởng", VIETNAMESE) is None  # the page's own
    assert present.text_language("Data Engineer", None) is None  # too few words to tell


def test_a_posting_in_vietnamese_says_so_on_an_english_page_only() -> None:
    from tests.web.test_language import ENGLISH, VIETNAMESE

    assert present.text_language("Kế toán trưởng", VIETNAMESE) == "vi"
    assert present.text_language("Data Engineer", ENGLISH) is None


def test_the_vietnamese_page_of_a_vietnamese_posting_needs_no_lang_on_it(web, seeded) -> None:
    vietnamese = next(r for r in seeded if r["title"] == "Kế toán trưởng")
    page = get(f"{web.url}/jobs/{vietnamese['id']}", headers=VI).text
    assert html_lang(page) == "vi"
    assert "<h1>Kế toán trưởng</h1>" in page
    english_page = get(f"{web.url}/jobs/{vietnamese['id']}").text
    assert '<h1 lang="vi">Kế toán trưởng</h1>' in english_page


# ---------------------------------------------------------------- the catalogue


def extracted_ids(root: Path = ROOT) -> set:
    """Every msgid the sources under `root` hold now, as `make messages` extracts them."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found = extract_from_dir(str(root), method_map, options_map, keywords=DEFAULT_KEYWORDS)
    return {message for _, _, message, _, _ in found}


def catalog_ids(catalog: Catalog) -> set:
    return {m.id for m in catalog if m.id}


def untranslated(catalog: Catalog) -> list:
    """The entries a page would show in English: empty, fuzzy, or not carrying the
    placeholders of their msgid."""
    found = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(s.strip() for s in strings) or list(message.check(catalog)):
            found.append(message.id)
    return found


def read(path: Path) -> Catalog:
    with path.open("rb") as po:
        return read_po(po)


def test_the_template_is_current_with_the_code_and_templates() -> None:
    # A new or changed string with no `make messages` fails here.
    assert extracted_ids() == catalog_ids(read(LOCALE / "messages.pot"))


def test_the_currency_check_sees_a_string_added_in_a_template_or_in_the_code(
    tmp_path: Path,
) -> None:
    (tmp_path / "web" / "templates").mkdir(parents=True)
    (tmp_path / "web" / "templates" / "new.html").write_text(
        '<p>{{ _("A new sentence") }}</p>{% trans %}Another one{% endtrans %}'
    )
    (tmp_path / "web" / "new.py").write_text('LABEL = N_("A new label")\n')
    assert extracted_ids(tmp_path) == {"A new sentence", "Another one", "A new label"}


def test_every_string_has_a_vietnamese_translation() -> None:
    vietnamese = read(LOCALE / "vi" / "LC_MESSAGES" / "messages.po")
    assert catalog_ids(vietnamese) == catalog_ids(read(LOCALE / "messages.pot"))
    assert untranslated(vietnamese) == []
    assert vietnamese.plural_forms == "nplurals=1; plural=0;"


def test_the_completeness_check_finds_a_missing_or_broken_translation() -> None:
    planted = Catalog(locale="vi")
    planted.add("Filters", "Bộ lọc")
    planted.add("Search", "")
    planted.add("Salary in %(currency)s", "Lương bằng %(tiền)s", flags=("python-format",))
    planted.add("Sort", "Sắp xếp", flags=("fuzzy",))
    assert untranslated(planted) == ["Search", "Salary in %(currency)s", "Sort"]


# Text between tags and in these attributes is for people: it must go through gettext.
_TAG = re.compile(r"<[^>]*>")
_PEOPLE_ATTRIBUTES = re.compile(r'\b(?:aria-label|placeholder|title|alt)="([^"{]*)"')
_WORD = re.compile(r"[^\W\d_]{2,}")
# Not words of the interface: the brand, and the currency code a field shows as its example.
_NOT_WORDS = {"jobharbor", "EUR"}


def unmarked_words(source: str) -> list[str]:
    """The words a template writes outside `_()`, `ngettext()` and `{% trans %}`."""
    lexer = Environment(extensions=["jinja2.ext.i18n"])
    data, inside_trans, previous = [], False, None
    for _, kind, value in lexer.lex(source):
        if kind == "whitespace":
            continue
        if kind == "name" and previous == "block_begin" and value in ("trans", "pluralize"):
            inside_trans = True
        elif kind == "name" and previous == "block_begin" and value == "endtrans":
            inside_trans = False
        elif kind == "data" and not inside_trans:
            data.append(value)
        previous = kind
    text = "".join(data)
    words = _WORD.findall(_TAG.sub(" ", text))
    words += [w for value in _PEOPLE_ATTRIBUTES.findall(text) for w in _WORD.findall(value)]
    return [w for w in words if w not in _NOT_WORDS]


def test_no_template_writes_words_outside_the_catalogue() -> None:
    found = {p.name: unmarked_words(p.read_text()) for p in sorted(TEMPLATES.glob("*.html"))}
    assert {name: words for name, words in found.items() if words} == {}


def test_the_marking_check_finds_a_word_left_out() -> None:
    assert unmarked_words("<p>{{ _('Filters') }}</p>") == []
    assert unmarked_words("{% trans n=1 %}One job{% endtrans %}") == []
    assert unmarked_words("<p>Filters</p>") == ["Filters"]
    assert unmarked_words('<nav aria-label="Pages"></nav>') == ["Pages"]
    assert unmarked_words("{% if x %}Not stated{% endif %}") == ["Not", "stated"]
