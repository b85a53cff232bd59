"""The chaos run's web probes (chaos.web_input) against a real serving database: hostile
postings render, every probe is counted in bad_inputs_tried, and a 500 or an unescaped
echo would count as a crash."""

from __future__ import annotations

import httpx

from chaos.bad_input import BadInputReport
from chaos.web_input import INJECTIONS, probe_outcome, probe_web


def test_the_web_probes_count_and_find_no_crash(databases) -> None:
    report = BadInputReport()
    probe_web(report, databases.serving.url, params=("q", "company", "cursor"))
    web = [t for t in report.tried if t.layer == "web"]
    ids = sum(1 for s in INJECTIONS if s) * 2
    assert len(web) == 3 * len(INJECTIONS) * 4 + ids
    assert report.crashes == []
    assert report.summary()["bad_inputs_tried"] == len(web)


def test_a_500_or_an_unescaped_echo_counts_as_a_crash() -> None:
    request = httpx.Request("GET", "http://x/")
    html = {"content-type": "text/html; charset=utf-8"}
    assert probe_outcome(httpx.Response(500, request=request), "x").startswith("crash")
    echoed = httpx.Response(200, headers=html, text="<p><script>x</script></p>", request=request)
    assert probe_outcome(echoed, "<script>x</script>") == "crash: payload echoed unescaped"
    escaped = httpx.Response(200, headers=html, text="<p>&lt;script&gt;</p>", request=request)
    assert probe_outcome(escaped, "<script>") == "ok: 200"
    assert probe_outcome(httpx.Response(422, request=request), "x") == "ok: 422"
