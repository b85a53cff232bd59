"""`jobharbor enrich evaluate`: the checked answers of a provider on the labelled set.

Per field: accuracy for enums, exact and +-1-year accuracy for experience, micro and
macro precision / recall / F1 for skills (required and preferred apart, and both
together), abstention correctness, the evidence-valid rate (proposed values the
checker kept), false positives on the traps subset, and how many postings the
checker rejected when fed adversarial answers.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pipeline.commands.parse_file import parse_document, read_body, registry_for
from pipeline.enrich import evalset
from pipeline.enrich.adversarial import VALUE_MODES, adversarial_answer
from pipeline.enrich.catalog import load_catalog
from pipeline.enrich.evidence import Checked, Checker
from pipeline.enrich.prompt import SYSTEM, build_prompt
from pipeline.enrich.provider import Call, ProviderError
from pipeline.enrich.providers import make_provider
from pipeline.enrich.rules import baseline
from pipeline.enrich.schema import (
    FIELDS,
    SKILL_FIELDS,
    YEAR_FIELDS,
    AnswerError,
    Extraction,
    parse_answer,
    response_schema,
)
from pipeline.enrich.settings import load_enrich_settings
from pipeline.enrich.text import flat, posting_text
from pipeline.settings import load_settings

# The labelled set lives beside the extraction it measures.
EVALSET = Path(evalset.__file__).parent


@dataclass(frozen=True)
class Case:
    id: str
    source: str
    language: str
    text: str
    gold: dict[str, Any]
    subsets: tuple[str, ...] = ()


def real_fixtures_dir() -> Path:
    return load_settings().effective_real_fixtures


def load_cases() -> tuple[list[Case], list[str]]:
    """The labelled set, and why any real reference was skipped."""
    cases = [
        Case(r["id"], r["source"], r["language"], r["text"], r["gold"], tuple(r["subsets"]))
        for r in map(json.loads, (EVALSET / "cases.jsonl").read_text(encoding="utf-8").splitlines())
    ]
    skipped: list[str] = []
    refs = yaml.safe_load((EVALSET / "real.yaml").read_text(encoding="utf-8"))["cases"]
    for ref in refs:
        text = _real_text(ref)
        if text is None:
            skipped.append(f"{ref['id']}: {real_fixtures_dir() / ref['file']} is absent")
            continue
        cases.append(Case(ref["id"], ref["source"], ref["language"], text, ref["gold"], ("real",)))
    return cases, skipped


def _real_text(ref: dict[str, Any]) -> str | None:
    path = real_fixtures_dir() / ref["file"]
    if not path.is_file():
        return None
    body, _ = read_body(path)
    registry, _ = registry_for(None)
    parsed = parse_document(registry.get(ref["parser"]), body or b"", path.as_uri(), "auto", None)
    for posting in parsed.outcome.postings:
        if str(posting.external_id) == str(ref["posting"]):
            return posting_text(posting.title, posting.location_text, posting.description_text)
    return None


# ---------------------------------------------------------------- answers


def answers_rules(cases: Iterable[Case]) -> dict[str, str]:
    catalog = load_catalog()
    return {c.id: json.dumps({"postings": [baseline(c.text, catalog, c.id)]}) for c in cases}


def answers_provider(cases: Iterable[Case], provider_name: str) -> dict[str, str | None]:
    """One request per posting, paced to the configured RPM (no queue, no database)."""
    import time

    settings = load_enrich_settings()
    provider = make_provider(settings, provider_name)
    spacing = settings.window_s / max(1, settings.rpm)
    out: dict[str, str | None] = {}
    for case in cases:
        started = time.monotonic()
        postings = ((case.id, case.text),)
        call = Call(
            SYSTEM,
            build_prompt(postings),
            response_schema([case.id]),
            settings.max_output_tokens,
            settings.temperature,
            postings,
        )
        try:
            out[case.id] = provider.generate(call).text
        except ProviderError:
            out[case.id] = None  # counted as an unreadable answer
        time.sleep(max(0.0, spacing - (time.monotonic() - started)))
    return out


# ---------------------------------------------------------------- scoring


@dataclass
class Prf:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, gold: set[str], predicted: set[str]) -> None:
        self.tp += len(gold & predicted)
        self.fp += len(predicted - gold)
        self.fn += len(gold - predicted)

    def scores(self) -> dict[str, float]:
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0
        return {
            "precision": round(p, 4),
            "recall": round(r, 4),
            "f1": round(2 * p * r / (p + r) if p + r else 0.0, 4),
        }


@dataclass
class Tally:
    micro: dict[str, Prf] = field(default_factory=lambda: defaultdict(Prf))
    per_key: dict[str, dict[str, Prf]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(Prf))
    )
    fields: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    proposed: int = 0
    kept: int = 0
    trap_false_positives: list[str] = field(default_factory=list)


def _gold_value(case: Case, name: str) -> Any:
    item = case.gold.get(name)
    return item.get("value") if isinstance(item, dict) else None


def _score_fields(tally: Tally, case: Case, checked: Checked) -> None:
    for name in FIELDS:
        gold = _gold_value(case, name)
        pred = checked.values[name].value if name in checked.values else None
        counts = tally.fields[name]
        counts["n"] += 1
        counts["correct"] += int(gold == pred)
        if name in YEAR_FIELDS:
            near = (gold is None and pred is None) or (
                gold is not None and pred is not None and abs(gold - pred) <= 1
            )
            counts["within_1"] += int(near)
        if gold is None:
            counts["gold_unknown"] += 1
            counts["abstained_when_unknown"] += int(pred is None)
        if pred is None:
            counts["abstained"] += 1
            counts["abstained_correctly"] += int(gold is None)


def _score_skills(tally: Tally, case: Case, checked: Checked) -> None:
    both_gold: set[str] = set()
    both_pred: set[str] = set()
    for name in SKILL_FIELDS:
        gold = {s["key"] for s in case.gold.get(name) or []}
        pred = {s.key for s in checked.skills.get(name, ()) if s.key}
        tally.micro[name].add(gold, pred)
        for key in gold | pred:
            tally.per_key[name][key].add(gold & {key}, pred & {key})
        both_gold |= gold
        both_pred |= pred
    tally.micro["skills"].add(both_gold, both_pred)
    for key in both_gold | both_pred:
        tally.per_key["skills"][key].add(both_gold & {key}, both_pred & {key})
    if "traps" in case.subsets:
        tally.trap_false_positives += [f"{case.id}:{k}" for k in sorted(both_pred - both_gold)]


def _proposed(answer: Extraction) -> int:
    scalar = sum(1 for name in FIELDS if getattr(answer, name).value is not None)
    return scalar + sum(len([s for s in getattr(answer, n) if s.value]) for n in SKILL_FIELDS)


def _kept(checked: Checked) -> int:
    return (
        len(checked.values) + sum(len(v) for v in checked.skills.values()) + len(checked.unmapped)
    )


def _macro(per_key: dict[str, Prf]) -> dict[str, float]:
    if not per_key:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    rows = [prf.scores() for prf in per_key.values()]
    return {m: round(sum(r[m] for r in rows) / len(rows), 4) for m in ("precision", "recall", "f1")}


def adversarial_rejections(cases: list[Case], checker: Checker) -> dict[str, int]:
    rejected = 0
    for n, case in enumerate(cases):
        mode = VALUE_MODES[n % len(VALUE_MODES)]
        answer = Extraction.model_validate(adversarial_answer(mode, case.id, case.text))
        rejected += int(checker.check(flat(case.text), answer).any_rejected)
    return {"postings": len(cases), "rejected": rejected}


def evaluate(provider: str = "rules") -> dict[str, Any]:
    cases, skipped = load_cases()
    raw = answers_rules(cases) if provider == "rules" else answers_provider(cases, provider)
    checker = Checker(load_catalog())
    tally, real = Tally(), Tally()
    unreadable = 0
    for case in cases:
        try:
            members, _, _ = parse_answer(raw.get(case.id), [case.id])
            answer = members[case.id]
        except (AnswerError, KeyError):
            unreadable += 1
            answer = Extraction()
        checked = checker.check(flat(case.text), answer)
        tally.proposed += _proposed(answer)
        tally.kept += _kept(checked)
        for target in (tally, real) if "real" in case.subsets else (tally,):
            _score_fields(target, case, checked)
            _score_skills(target, case, checked)
    report = _report(provider, cases, skipped, tally, unreadable, checker)
    # The captured real postings apart: the project-written cases share the rules' phrasing.
    report["real_subset"] = {
        "postings": sum(1 for c in cases if "real" in c.subsets),
        "skills": {name: real.micro[name].scores() for name in (*SKILL_FIELDS, "skills")},
        "fields": {name: round(c["correct"] / c["n"], 4) for name, c in real.fields.items()},
    }
    return report


def _report(
    provider: str,
    cases: list[Case],
    skipped: list[str],
    tally: Tally,
    unreadable: int,
    checker: Checker,
) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name, c in tally.fields.items():
        entry = {"accuracy": round(c["correct"] / c["n"], 4)}
        if name in YEAR_FIELDS:
            entry["within_1"] = round(c["within_1"] / c["n"], 4)
        entry["abstention_when_unknown"] = (
            round(c["abstained_when_unknown"] / c["gold_unknown"], 4) if c["gold_unknown"] else None
        )
        entry["abstentions_correct"] = (
            round(c["abstained_correctly"] / c["abstained"], 4) if c["abstained"] else None
        )
        fields[name] = entry
    skills = {
        name: {"micro": tally.micro[name].scores(), "macro": _macro(tally.per_key[name])}
        for name in (*SKILL_FIELDS, "skills")
    }
    return {
        "provider": provider,
        "postings": len(cases),
        "by_source": dict(Counter(c.source for c in cases)),
        "by_language": dict(Counter(c.language for c in cases)),
        "traps": sum(1 for c in cases if "traps" in c.subsets),
        "real": sum(1 for c in cases if "real" in c.subsets),
        "skipped": skipped,
        "unreadable_answers": unreadable,
        "fields": fields,
        "skills": skills,
        "evidence_valid_rate": round(tally.kept / tally.proposed, 4) if tally.proposed else None,
        "trap_false_positives": tally.trap_false_positives,
        "adversarial": adversarial_rejections(cases, checker),
    }


def render(report: dict[str, Any]) -> str:
    lines = [
        f"enrich evaluate --provider {report['provider']}: {report['postings']} postings "
        f"({report['traps']} traps, {report['real']} real) by language {report['by_language']}",
        f"  by source: {report['by_source']}",
    ]
    lines += [f"  skipped: {s}" for s in report["skipped"]]
    lines.append(
        f"  {'field':<17} {'accuracy':>8} {'±1 year':>8} {'abstain|unknown':>16} {'abstentions ok':>15}"
    )
    for name, f in report["fields"].items():
        within = f"{f['within_1']:.3f}" if "within_1" in f else "-"
        unk = "-" if f["abstention_when_unknown"] is None else f"{f['abstention_when_unknown']:.3f}"
        ok = "-" if f["abstentions_correct"] is None else f"{f['abstentions_correct']:.3f}"
        lines.append(f"  {name:<17} {f['accuracy']:>8.3f} {within:>8} {unk:>16} {ok:>15}")
    lines.append(
        f"  {'skills':<17} {'micro P':>8} {'R':>6} {'F1':>6}   {'macro P':>8} {'R':>6} {'F1':>6}"
    )
    for name, s in report["skills"].items():
        mi, ma = s["micro"], s["macro"]
        lines.append(
            f"  {name:<17} {mi['precision']:>8.3f} {mi['recall']:>6.3f} {mi['f1']:>6.3f}   "
            f"{ma['precision']:>8.3f} {ma['recall']:>6.3f} {ma['f1']:>6.3f}"
        )
    adv = report["adversarial"]
    sub = report.get("real_subset") or {}
    if sub.get("postings"):
        s = sub["skills"]["skills"]
        lines.append(
            f"  real postings only ({sub['postings']}): skills micro P {s['precision']:.3f} R {s['recall']:.3f} "
            f"F1 {s['f1']:.3f}; field accuracy {sub['fields']}"
        )
    lines += [
        f"  evidence-valid rate: {report['evidence_valid_rate']}",
        f"  false positives on traps: {len(report['trap_false_positives'])} {report['trap_false_positives']}",
        f"  adversarial answers: the checker rejected {adv['rejected']} of {adv['postings']} postings",
    ]
    return "\n".join(lines)
