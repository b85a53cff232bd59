"""The rules baseline as a provider: no model, no network, the same checks after it."""

from __future__ import annotations

import json
from typing import Any

from pipeline.enrich.catalog import load_catalog
from pipeline.enrich.provider import Call, Reply, Usage
from pipeline.enrich.rules import baseline


class RulesProvider:
    name = "rules"

    def __init__(self) -> None:
        self.catalog = load_catalog()
        self.model = f"catalogue@{self.catalog.version}"

    def settings(self) -> dict[str, Any]:
        return {}

    def generate(self, call: Call) -> Reply:
        answers = [baseline(text, self.catalog, pid) for pid, text in call.postings]
        return Reply(json.dumps({"postings": answers}, ensure_ascii=False), "STOP", Usage())
