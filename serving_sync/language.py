"""The language a posting is written in: detected once, at sync (serving.jobs.language),
where it picks the stemmer of the posting's words (English, German and French have one;
every other language is searched folded only), and on the pages for the `lang` attribute
(screen readers pick their voice by it, browsers their hyphenation and fonts). The pages
are in English; a posting in another language says so on its title and description.

Only what the text shows plainly: Vietnamese by its own letters (ơ, ư, đ and the tone
marks stacked on vowels that no other Latin-script language uses), a few scripts that
name one language (Thai, Korean, Greek, Hebrew), and the common Latin-script languages
of job boards by their most frequent short words. Anything unclear is None: the page's
English stands, as it always did."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

# Letters only Vietnamese writes (lowercase; the text is lowercased first).
_VIETNAMESE = frozenset("ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ")
_SCRIPTS = {"THAI": "th", "HANGUL": "ko", "GREEK": "el", "HEBREW": "he"}
# The most frequent words of each language that are not words of the others.
_STOPWORDS = {
    "en": {"the", "and", "you", "with", "for", "our", "will", "are", "we", "your", "of", "to"},
    "de": {"und", "der", "die", "das", "wir", "mit", "für", "sie", "ist", "ein", "eine", "bei"},
    "fr": {"et", "les", "des", "nous", "pour", "vous", "une", "est", "dans", "sur", "avec", "le"},
    "es": {"y", "los", "las", "para", "con", "una", "por", "del", "nuestro", "el", "en", "es"},
    "nl": {"en", "het", "een", "van", "wij", "je", "voor", "met", "zijn", "onze", "bij", "ons"},
    "pt": {"e", "os", "as", "para", "com", "uma", "nosso", "não", "você", "em", "do", "da"},
    "it": {"e", "il", "di", "per", "con", "una", "della", "sono", "nostro", "che", "gli", "la"},
}
_WORD = re.compile(r"[^\W\d_]+")
MIN_WORDS = 8  # fewer words than this say too little
SAMPLE_CHARS = 4000


def posting_language(title: str | None, description: str | None) -> str | None:
    """A BCP 47 code for a posting not in English, or None (English, or unclear)."""
    found = detected_language(title, description)
    return None if found == "en" else found


def detected_language(title: str | None, description: str | None) -> str | None:
    """The BCP 47 code of the language the text plainly shows, English included; None
    when unclear (too few words, or two languages alike)."""
    text = f"{title or ''}\n{(description or '')[:SAMPLE_CHARS]}".lower()
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return None
    if sum(c in _VIETNAMESE for c in letters) / len(letters) >= 0.02:
        return "vi"
    script = _main_script(letters)
    if script is not None:
        return script
    return _by_words(_WORD.findall(text))


def _main_script(letters: list[str]) -> str | None:
    counts = Counter(unicodedata.name(c, "").split(" ")[0] for c in letters)
    name, count = counts.most_common(1)[0]
    return _SCRIPTS.get(name) if count / len(letters) >= 0.5 else None


def _by_words(words: list[str]) -> str | None:
    if len(words) < MIN_WORDS:
        return None
    scores = {lang: sum(w in common for w in words) for lang, common in _STOPWORDS.items()}
    best, second = sorted(scores.values(), reverse=True)[:2]
    if best < 3 or best < 1.5 * second:
        return None  # too few, or two languages alike (a bilingual posting)
    return max(scores, key=lambda lang: scores[lang])
