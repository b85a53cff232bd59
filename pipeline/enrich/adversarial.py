"""What a wrong model says: answers that must not get past the checker.

Each mode starts from the truthful (rules) answer and breaks one thing. The sandbox's
Gemini endpoint answers with these when switched to an adversarial mode, and
`jobharbor enrich evaluate` feeds them to the checker for every labelled posting.
"""

from __future__ import annotations

from typing import Any

from pipeline.enrich.catalog import load_catalog
from pipeline.enrich.lexicon import SENIORITY, supports
from pipeline.enrich.rules import baseline

VALUE_MODES = (
    "hallucinated_excerpt",
    "unsupported_value",
    "out_of_range",
    "min_gt_max",
    "enum_outside_schema",
    "unsupported_skill",
)


def _first_word(text: str) -> str:
    words = text.split()
    return words[0] if words else text


def adversarial_answer(mode: str, posting_id: str | None, text: str) -> dict[str, Any]:
    answer = baseline(text, load_catalog(), posting_id)
    word = _first_word(text)
    if mode == "hallucinated_excerpt":
        answer["experience_min"] = {
            "evidence": "12+ years of experience in quantum sorcery",
            "value": 12,
        }
    elif mode == "unsupported_value":
        value = next(v for v in SENIORITY if not supports("seniority", v, word))
        answer["seniority"] = {"evidence": word, "value": value}
    elif mode == "out_of_range":
        answer["experience_max"] = {"evidence": word, "value": 55}
    elif mode == "min_gt_max":
        answer["experience_min"] = {"evidence": word, "value": 9}
        answer["experience_max"] = {"evidence": word, "value": 2}
    elif mode == "enum_outside_schema":
        answer["work_mode"] = {"evidence": word, "value": "on_the_moon"}
    elif mode == "unsupported_skill":
        key = "kubernetes" if "Kubernetes" not in word else "cobol"
        answer["skills_required"] = [*answer["skills_required"], {"evidence": word, "value": key}]
    else:
        raise ValueError(f"unknown adversarial mode {mode!r}")
    return answer
