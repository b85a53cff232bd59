"""No script from data runs, in headless Chromium with JavaScript ON (docs/reliability.md §6):
postings whose title, company, location and description carry <script> and event-handler
payloads are shown on the list, the job page and stats; every payload would set
window.__pwned, which stays undefined, and no <script> or on* attribute from data is in
the DOM."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from pipeline.settings import Settings
from tests.serving.conftest import job_row
from tests.web.test_browser import browser_page

CHROMIUM = Settings().browser_executable
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        shutil.which(CHROMIUM) is None,
        reason=f"{CHROMIUM} not installed (Debian: apt-get install -y chromium)",
    ),
]

PAYLOADS = (
    "<script>window.__pwned='script'</script>",
    '"><img src=x onerror="window.__pwned=\'img\'">',
    "'><svg onload=window.__pwned='svg'>",
    "<iframe srcdoc=\"<script>parent.__pwned='iframe'</script>\"></iframe>",
    "<body onload=window.__pwned='body'>",
    "<a href=\"javascript:window.__pwned='link'\">apply</a>",
    "</textarea></title><script>window.__pwned='close'</script>",
)
HOSTILE_IDS = [5000 + i for i in range(len(PAYLOADS))]

# Any trace of data-born script in the DOM: a script element with payload text, any
# on* attribute, a javascript: URL, an iframe.
DOM_CHECK = """() => {
  const data = [...document.querySelectorAll('script[type="application/ld+json"]')];
  const scripts = [...document.querySelectorAll('script')]
      .filter(s => s.type !== 'application/ld+json')
      .filter(s => s.textContent.includes('__pwned') || (s.src && !s.src.includes('/static/')));
  // A JSON-LD block is data, never run; it must still hold JSON alone, no markup.
  const broken = data.filter(s => {
    if (s.textContent.includes('<')) return true;
    try { JSON.parse(s.textContent); return false; } catch (e) { return true; }
  });
  const handlers = [...document.querySelectorAll('*')]
      .flatMap(e => [...e.attributes].filter(a => a.name.startsWith('on')).map(a => a.name));
  const js = [...document.querySelectorAll('[href], [src]')]
      .filter(e => /^\\s*javascript:/i.test(e.getAttribute('href') || e.getAttribute('src') || ''));
  return {scripts: scripts.length, handlers, js: js.length, data_broken: broken.length,
          frames: document.querySelectorAll('iframe, embed, object').length,
          pwned: typeof window.__pwned === 'undefined' ? null : String(window.__pwned)};
}"""
CLEAN = {"scripts": 0, "handlers": [], "js": 0, "data_broken": 0, "frames": 0, "pwned": None}


@pytest.fixture
def hostile(seeded, serving) -> list[int]:
    from tests.serving.conftest import insert_jobs

    rows = [
        job_row(
            100 + i,
            id=HOSTILE_IDS[i],
            title=f"Engineer {payload}",
            company=f"Evil {payload}",
            location_text=f"Berlin {payload}",
            description=f"About the role. {payload} More text.",
            apply_url=f"javascript:window.__pwned='apply{i}'",
            url=f"https://jobs.example.test/x{i}",
        )
        for i, payload in enumerate(PAYLOADS)
    ]
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, rows)
    return HOSTILE_IDS


@pytest.fixture
def page(web, tmp_path: Path) -> Iterator:
    with browser_page(web.url, javascript=True) as found:  # scripts on: would one run?
        yield found


def _visit(page, path: str, tmp_path: Path, name: str) -> dict:
    response = page.goto(path)
    assert response is not None
    assert response.status == 200, path
    page.wait_for_load_state("networkidle")
    page.screenshot(path=tmp_path / "screenshots" / f"xss-{name}.png", full_page=True)
    return page.evaluate(DOM_CHECK)


def test_no_script_from_data_runs_on_the_list_job_and_stats_pages(page, hostile, tmp_path) -> None:
    paths = {
        "list": "/?q=engineer&limit=50",
        "list-company": "/?company=" + "Evil",
        "stats": "/stats",
        "stats-filtered": "/stats?q=engineer",
    }
    paths |= {f"job-{i}": f"/jobs/{job}" for i, job in enumerate(hostile)}
    for name, path in paths.items():
        assert _visit(page, path, tmp_path, name) == CLEAN, name
    # The payloads are there, as text: the list shows the hostile titles.
    page.goto("/?q=engineer&limit=50")
    shown = page.locator("main").inner_text()
    assert "<script>window.__pwned='script'</script>" in shown


def test_the_hostile_postings_are_listed_not_hidden(page, hostile, tmp_path) -> None:
    page.goto(f"/jobs/{hostile[1]}")
    heading = page.get_by_role("heading", level=1).inner_text()
    assert heading == f"Engineer {PAYLOADS[1]}"
    assert page.evaluate("typeof window.__pwned") == "undefined"


def test_the_dom_check_catches_a_payload_that_does_run(page) -> None:
    """The check has teeth: the same payloads, put in the DOM unescaped, are caught."""
    page.set_content("<main>" + "".join(PAYLOADS[:2]) + "</main>")
    page.wait_for_timeout(200)
    found = page.evaluate(DOM_CHECK)
    assert found["pwned"] in {"script", "img"}
    assert found["scripts"] == 1
    assert found["handlers"] == ["onerror"]


def test_the_dom_check_catches_markup_inside_a_json_ld_block(page) -> None:
    page.set_content('<script type="application/ld+json">{"title": "<b>x</b>"}</script>')
    assert page.evaluate(DOM_CHECK)["data_broken"] == 1
    page.set_content('<script type="application/ld+json">{"title": "x"</script>')
    assert page.evaluate(DOM_CHECK)["data_broken"] == 1
    page.set_content('<script type="application/ld+json">{"title": "\\u003cb"}</script>')
    assert page.evaluate(DOM_CHECK)["data_broken"] == 0
