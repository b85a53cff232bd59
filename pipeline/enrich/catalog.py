"""The skill catalogue (skills.yaml) and its deterministic matcher.

Names that full-text search mangles (C++, C#, .NET, Node.js) are matched as exact
aliases between word boundaries, never through a tokenizer. Ambiguous aliases (Go,
C, R, Java, Swift, ...) are matched case-sensitively and only in a technical
context; a key's `neg` patterns ("Go to", "Java coffee", "grade C") veto a match
they overlap. The same matcher is the rules baseline and the check on a model's
skills (a model skill whose excerpt holds none of its key's aliases is rejected).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from pipeline.enrich.text import text_hash

CATALOG_FILE = Path(__file__).with_name("skills.yaml")
# A skill name may end in + or # (C++, C#): neither may follow a match.
_LEFT = r"(?<![\w])"
_RIGHT = r"(?![\w+#])"
_CONTEXT = re.compile(
    r"\b(languages?|programming|programmer|developers?|development|engineers?|engineering|"
    r"code|coding|backend|back-end|frontend|front-end|full-stack|fullstack|stack|frameworks?|"
    r"librar(y|ies)|SDK|tech|technolog(y|ies)|proficien(t|cy)|experience (with|in)|"
    r"knowledge of|skills?|services|microservices|tooling|"
    r"lập trình|ngôn ngữ|công nghệ|kỹ năng|kinh nghiệm|thành thạo|kiến thức)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|[\n•·|]")
WINDOW = 40


@dataclass(frozen=True)
class SkillMatch:
    key: str
    alias: str  # the text matched, as it appears
    start: int
    end: int


@dataclass(frozen=True)
class Skill:
    key: str
    category: str
    aliases: tuple[str, ...]  # case-insensitive
    exact: tuple[str, ...]  # case-sensitive, no context needed
    ambiguous: tuple[str, ...]  # case-sensitive, need context
    neg: tuple[re.Pattern[str], ...]


def _alternation(aliases: Iterable[str]) -> str:
    ordered = sorted(set(aliases), key=lambda a: (-len(a), a))
    return "|".join(re.escape(a).replace(r"\ ", r"\s") for a in ordered)


class SkillCatalog:
    """Canonical keys, their aliases, and a matcher giving character offsets."""

    def __init__(self, skills: dict[str, Skill], version: str) -> None:
        self.skills = skills
        self.version = version
        self._ci: dict[str, str] = {}
        self._cs: dict[str, str] = {}
        self._ambiguous: set[str] = set()
        for skill in skills.values():
            for alias in skill.aliases:
                self._claim(self._ci, alias.casefold(), skill.key, alias)
            for alias in (*skill.exact, *skill.ambiguous):
                self._claim(self._cs, alias, skill.key, alias)
            self._ambiguous.update(skill.ambiguous)
        self._ci_re = re.compile(_LEFT + "(" + _alternation(self._ci) + ")" + _RIGHT, re.I)
        self._cs_re = re.compile(_LEFT + "(" + _alternation(self._cs) + ")" + _RIGHT)
        self._label_ci = {k.replace("_", " "): k for k in skills} | dict(self._ci)

    @staticmethod
    def _claim(table: dict[str, str], form: str, key: str, alias: str) -> None:
        owner = table.get(form)
        if owner is not None and owner != key:
            raise ValueError(f"skills.yaml: alias {alias!r} belongs to both {owner} and {key}")
        table[form] = key

    def __len__(self) -> int:
        return len(self.skills)

    # ---- matching

    def _raw_matches(self, text: str) -> list[SkillMatch]:
        found = [
            SkillMatch(self._ci[m.group(1).casefold()], m.group(1), m.start(1), m.end(1))
            for m in self._ci_re.finditer(text)
        ]
        found += [
            SkillMatch(self._cs[m.group(1)], m.group(1), m.start(1), m.end(1))
            for m in self._cs_re.finditer(text)
        ]
        found.sort(key=lambda s: (s.start, -(s.end - s.start)))
        kept: list[SkillMatch] = []
        for match in found:
            if kept and match.start < kept[-1].end:
                continue  # the longer, earlier alias already covers it
            kept.append(match)
        return kept

    def _vetoed(self, text: str, match: SkillMatch) -> bool:
        lo = max(0, match.start - WINDOW)
        window = text[lo : match.end + WINDOW]
        for pattern in self.skills[match.key].neg:
            for hit in pattern.finditer(window):
                if hit.start() + lo < match.end and hit.end() + lo > match.start:
                    return True
        return False

    def _in_context(self, text: str, match: SkillMatch, plain: list[SkillMatch]) -> bool:
        """An ambiguous alias counts only beside another skill or a technical word in its
        sentence."""
        start = match.start
        while start > 0 and not _SENTENCE_END.match(text, start - 1):
            start -= 1
        end = match.end
        while end < len(text) and not _SENTENCE_END.match(text, end):
            end += 1
        if any(start <= m.start and m.end <= end and m is not match for m in plain):
            return True
        return (
            _CONTEXT.search(text, max(start, match.start - 30), min(end, match.end + 30))
            is not None
        )

    def find(self, text: str) -> list[SkillMatch]:
        """Every skill mention in `text` (flat normalised text), in order."""
        raw = [m for m in self._raw_matches(text) if not self._vetoed(text, m)]
        plain = [m for m in raw if m.alias not in self._ambiguous]
        return [
            m for m in raw if m.alias not in self._ambiguous or self._in_context(text, m, plain)
        ]

    def excerpt_supports(self, key: str, excerpt: str) -> bool:
        """The check on a model skill: its excerpt holds one of the key's aliases (as a
        whole word, with the key's vetoes). Context is the model's call, not ours."""
        return any(
            m.key == key and not self._vetoed(excerpt, m) for m in self._raw_matches(excerpt)
        )

    def key_for_label(self, label: str) -> str | None:
        """A model's label mapped to a canonical key, or None (kept as unmapped)."""
        label = " ".join(label.split())
        if label in self.skills:
            return label
        return self._cs.get(label) or self._label_ci.get(label.casefold())


def _skill(key: str, entry: dict) -> Skill:
    return Skill(
        key=key,
        category=str(entry["c"]),
        aliases=tuple(str(a) for a in (*entry.get("en", ()), *entry.get("vi", ()))),
        exact=tuple(str(a) for a in entry.get("cs", ())),
        ambiguous=tuple(str(a) for a in entry.get("amb", ())),
        neg=tuple(re.compile(p) for p in entry.get("neg", ())),
    )


@lru_cache(maxsize=4)
def load_catalog(path: Path = CATALOG_FILE) -> SkillCatalog:
    raw = path.read_text(encoding="utf-8")
    skills = {key: _skill(key, entry) for key, entry in yaml.safe_load(raw)["skills"].items()}
    return SkillCatalog(skills, text_hash(raw)[:12])
