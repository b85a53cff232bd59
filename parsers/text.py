"""Text helpers shared by parsers: HTML to text, whitespace, dates with precision."""

from __future__ import annotations

import html
import re
import unicodedata
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from lxml import etree

from parsers.types import Salary

_WS = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "br",
        "li",
        "ul",
        "ol",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "tr",
        "td",
        "th",
        "dt",
        "dd",
        "table",
        "section",
        "article",
        "header",
        "footer",
        "blockquote",
        "pre",
    ]
)


# Characters that show nothing: zero-width space, direction marks, word joiners,
# byte-order marks, soft hyphens. Copied from CMS editors into names and places
# they make "Berlin" and "Ber\u200blin" two different strings. Zero-width (non-)
# joiners shape Persian and Indic words, so they are kept between such letters
# and dropped only next to ASCII, any space or the ends: a whole run of them at once,
# and only once the others are gone, so that cleaning twice changes nothing.
_HIDDEN = re.compile("[\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\ufeff\u00ad\u180e]")
_LOOSE_JOINERS = re.compile(
    r"(?:(?<=[\x00-\x7f\s])|^)[\u200c\u200d]+|[\u200c\u200d]+(?=[\x00-\x7f\s]|$)"
)
_INVISIBLE_HINT = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e"
)


_INVISIBLE_CHARS = tuple(sorted(_INVISIBLE_HINT))


def drop_invisible(value: str) -> str:
    if value.isascii() or not _may_hold_invisible(value):
        return value
    return _LOOSE_JOINERS.sub("", _HIDDEN.sub("", value))


def _may_hold_invisible(value: str) -> bool:
    """Whether `value` holds any of the invisible characters. A long text is searched
    once per character (a C-level scan each); the set test builds a one-character
    string for every character of the text, about 10 ns each."""
    if len(value) < 64:
        return not _INVISIBLE_HINT.isdisjoint(value)
    return any(char in value for char in _INVISIBLE_CHARS)


def clean_space(value: str | None) -> str | None:
    """Collapse runs of whitespace and drop invisible characters; empty strings
    become None (unknown stays unknown)."""
    if value is None:
        return None
    if not value.isascii():
        value = drop_invisible(value)
        # No-break spaces are the one non-ASCII space collapsed.
        if "\u00a0" in value:
            return _WS.sub(" ", value).strip() or None
    # Already clean, the common case, told without a regular expression (a
    # description's thousand single spaces are not each replaced): nothing at the
    # ends (`strip` gives the string itself back), no tab or other break found by
    # memchr, and the slower search for two spaces only where there is a space at all
    # (URLs and ids have none). It runs for most fields of every row.
    if (
        value.strip() == value
        and "\t" not in value
        and "\r" not in value
        and "\f" not in value
        and "\v" not in value
        and (" " not in value or "  " not in value)
    ):
        return value or None
    return _WS.sub(" ", value).strip() or None


_EMPTY_SEGMENTS = re.compile(r"\s*,(?:\s*,)+\s*")


@lru_cache(maxsize=4096)  # pure; a board names the same few places on every row
def clean_place(value: str | None) -> str | None:
    """A location as stated, without empty segments: "Szczecin, , Poland" is
    "Szczecin, Poland" (a CMS joined an empty region field)."""
    value = clean_space(value)
    if value is None or "," not in value:
        return value
    if value.count(",") > 1:  # an empty segment needs two commas; "City, Country" has one
        value = _EMPTY_SEGMENTS.sub(", ", value)
    return value.strip(" ,") or None


_COMMON_ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&#39;", "'"), ("&#x27;", "'"))


def unescape_html(value: str) -> str:
    """Greenhouse and others ship HTML entity-escaped HTML (`&lt;p&gt;`): unescaped
    once. The common entities go by plain replacement (html.unescape calls back into
    Python for every entity, and escaped HTML is mostly entities); `&amp;` and the
    rest go last, so nothing is unescaped twice."""
    for entity, char in _COMMON_ENTITIES:
        if entity in value:
            value = value.replace(entity, char)
    return html.unescape(value) if "&" in value else value


_HTML_UTF8_PARSER = etree.HTMLParser(remove_comments=True, remove_pis=True, encoding="utf-8")
# C0 controls but tab, newline and carriage return; surrogates; the two non-characters.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_NOT_XML_BYTES = bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])


def xml_text(value: str) -> str:
    """`value` with the characters XML cannot hold replaced by spaces.

    Checked first without the character class (a regular expression scans about
    7 ns a character, longer than lxml takes to parse the fragment): in UTF-8 the C0
    controls are their own bytes, U+FFFE and U+FFFF have their own three bytes, and
    a lone surrogate cannot be encoded at all. Almost every text has none of them.
    """
    return value if _xml_holdable_utf8(value) is not None else _NOT_XML.sub(" ", value)


def xml_utf8(value: str) -> bytes:
    """`xml_text(value)` in UTF-8, the text encoded once: lxml parses bytes in a
    declared encoding faster than a str it must convert first."""
    data = _xml_holdable_utf8(value)
    return data if data is not None else _NOT_XML.sub(" ", value).encode("utf-8")


def _xml_holdable_utf8(value: str) -> bytes | None:
    """`value` in UTF-8 when XML can hold every character of it, else None."""
    try:
        data = value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return None
    if (
        len(data.translate(None, _NOT_XML_BYTES)) != len(data)
        or b"\xef\xbf\xbe" in data
        or b"\xef\xbf\xbf" in data
    ):
        return None
    return data


def html_to_text(markup: str | None) -> str | None:
    """Readable text from an HTML fragment: block elements become line breaks.

    Written for throughput (it runs once per posting): one lxml parse, C-level
    element filtering, and str.split/join for the whitespace (several times faster
    than regular expressions here).
    """
    if not markup or not markup.strip():
        return None
    root = _fragment(markup)
    if root is None:
        return clean_space(xml_text(markup))
    _break_blocks(root)
    return collapse_lines(str(root.xpath("string()"))) or None


def collapse_lines(text: str) -> str:
    """Each line's whitespace collapsed to single spaces, empty lines dropped.

    Every whitespace character but the space is unprintable (Unicode separators and
    controls), so a text that is printable apart from its line breaks and holds no
    double space only needs its lines' edges trimmed: C-level string methods, where
    splitting every line into words costs about as much as parsing the HTML."""
    lines = text.split("\n")
    if "  " not in text and all(map(str.isprintable, lines)):
        return "\n".join(filter(None, map(str.strip, lines)))
    return "\n".join(filter(None, [" ".join(line.split()) for line in lines]))


def _fragment(markup: str) -> etree._Element | None:
    """The fragment parsed, without the elements that show nothing; None if unparseable."""
    # lxml refuses strings with characters XML cannot hold, also when a parsed tail is
    # set again later: a stray control character would make the whole parse fail. The
    # parser is told UTF-8, which a <meta charset> in the fragment does not override.
    try:
        root = etree.fromstring(xml_utf8(markup), _HTML_UTF8_PARSER)
    except etree.XMLSyntaxError:
        return None
    if root is not None:
        etree.strip_elements(root, "script", "style", "noscript", "template", with_tail=False)
    return root


def _break_blocks(root: etree._Element) -> None:
    for element in root.iter(*_BLOCK_TAGS):
        element.tail = "\n" + element.tail if element.tail else "\n"


# The kind of block a line of html_to_text starts in: h a heading, u an item of an
# unordered list, o of an ordered one, p anything else. Marked in the text by private-use
# characters (dropped again before the whitespace is collapsed, so the lines are
# html_to_text's exactly): each block's text starts with its kind, the text after a block
# with p; where blocks nest, a heading outranks a list item, which outranks the rest.
LINE_KINDS = "hpuo"
_KIND_MARKS = {kind: chr(0xE000 + n) for n, kind in enumerate(LINE_KINDS)}
_MARK_KINDS = {mark: kind for kind, mark in _KIND_MARKS.items()}
_ANY_MARK = re.compile("[" + "".join(_MARK_KINDS) + "]")
_RANK = {"h": 3, "u": 2, "o": 2, "p": 1}
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def html_lines(markup: str | None) -> list[tuple[str, str]]:
    """html_to_text's lines, each with the kind of block it starts in (LINE_KINDS); a
    line broken off by a <br> continues the kind before it."""
    root = None
    if markup and markup.strip() and not _ANY_MARK.search(markup):
        root = _fragment(markup)
    if root is None:
        return [("p", line) for line in (html_to_text(markup) or "").split("\n") if line]
    for element in root.iter(*(_BLOCK_TAGS - {"br"})):
        element.text = _KIND_MARKS[_block_kind(element)] + (element.text or "")
        element.tail = _KIND_MARKS["p"] + (element.tail or "")
    _break_blocks(root)
    out: list[tuple[str, str]] = []
    kind = "p"
    for line in str(root.xpath("string()")).split("\n"):
        marks = _ANY_MARK.findall(line)
        if marks:
            kind = max((_MARK_KINDS[c] for c in marks), key=_RANK.__getitem__)
            line = _ANY_MARK.sub("", line)
        text = " ".join(line.split())
        if text:
            out.append((kind, text))
    return out


def _block_kind(element: etree._Element) -> str:
    if element.tag in _HEADINGS:
        return "h"
    if element.tag == "li":
        parent = element.getparent()
        return "o" if parent is not None and parent.tag == "ol" else "u"
    return "p"


def parse_datetime(value: str | int | float | None) -> tuple[datetime | None, str]:
    """An ISO 8601 string or epoch milliseconds -> (UTC datetime, precision).

    A date without a time is day precision; anything unparseable is unknown
    rather than a made-up timestamp.
    """
    if value is None or value == "":
        return None, "unknown"
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        return datetime.fromtimestamp(seconds, tz=UTC), "exact"
    text = value.strip()
    if not text[:1].isdigit():  # "Posted 3 Days Ago": no ISO date (and no exception)
        return None, "unknown"
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return datetime.fromisoformat(text).replace(tzinfo=UTC), "day"
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None, "unknown"
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC), "exact"


# ---------------------------------------------------------------- dates with a precision

_ISO_SPACE_UTC = re.compile(
    r"^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(?:UTC|GMT|Z)$"
)
_SLASH_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")

# Relative dates that are exact to the day: "Posted Today", "3 days ago", "7 hours ago",
# "2 ngày trước". Anything vaguer ("30+ Days Ago", "2 weeks ago", "1 tháng trước")
# stays unknown: rounding it would invent a date.
_TODAY = re.compile(r"\b(?:today|just now|just posted|hôm nay|vừa xong|vừa đăng)\b", re.I)
_YESTERDAY = re.compile(r"\b(?:yesterday|hôm qua)\b", re.I)
_OPEN_ENDED = re.compile(r"\d+\s*\+|\bover\b|\bmore than\b|\bhơn\b|\btrên\b", re.I)
_AGO = re.compile(
    r"\b(?P<n>\d+|an?|one|một)\s*(?P<unit>seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|d|"
    r"weeks?|wks?|months?|mos?|years?|yrs?|giây|phút|giờ|tiếng|ngày|tuần|tháng|năm)\b"
    r"\s*(?:ago|trước)",
    re.I,
)
_EXACT_UNITS = {
    "second": timedelta(seconds=1),
    "minute": timedelta(minutes=1),
    "hour": timedelta(hours=1),
    "day": timedelta(days=1),
}
_UNIT_NAMES = {
    "s": "second", "sec": "second", "secs": "second", "second": "second", "seconds": "second",
    "giây": "second", "min": "minute", "mins": "minute", "minute": "minute",
    "minutes": "minute", "phút": "minute", "h": "hour", "hr": "hour", "hrs": "hour",
    "hour": "hour", "hours": "hour", "giờ": "hour", "tiếng": "hour", "d": "day",
    "day": "day", "days": "day", "ngày": "day",
}  # fmt: skip


def _day(value: datetime) -> datetime:
    return datetime(value.year, value.month, value.day, tzinfo=UTC)


def parse_relative_date(text: str, fetched_at: datetime | None) -> tuple[datetime | None, str]:
    """ "Posted 3 Days Ago" -> (the day, "day") when exact to the day and we know when
    the page was fetched; otherwise (None, "unknown")."""
    if fetched_at is None:
        return None, "unknown"
    now = fetched_at if fetched_at.tzinfo else fetched_at.replace(tzinfo=UTC)
    now = now.astimezone(UTC)
    if _OPEN_ENDED.search(text):
        return None, "unknown"
    if _TODAY.search(text):
        return _day(now), "day"
    if _YESTERDAY.search(text):
        return _day(now - timedelta(days=1)), "day"
    match = _AGO.search(text)
    if match is None:
        return None, "unknown"
    unit = _UNIT_NAMES.get(match["unit"].lower())
    if unit is None:  # weeks, months, years: too coarse to name a day
        return None, "unknown"
    raw_n = match["n"].lower()
    n = int(raw_n) if raw_n.isdigit() else 1
    return _day(now - n * _EXACT_UNITS[unit]), "day"


def parse_posted(
    value: str | int | float | None, fetched_at: datetime | None = None
) -> tuple[datetime | None, str]:
    """See `_parse_posted`; values of any other type (a list, an object) are unknown."""
    if value is None or type(value) in (str, int, float):
        return _parse_posted(value, fetched_at)
    return None, "unknown"


@lru_cache(maxsize=4096)  # pure; a listing repeats its "Posted 3 Days Ago" strings
def _parse_posted(
    value: str | int | float | None, fetched_at: datetime | None = None
) -> tuple[datetime | None, str]:
    """Any posted-date value a source gives -> (UTC datetime, precision).

    ISO dates and timestamps, epoch (milli)seconds, "2026-09-18 12:55:59 UTC",
    unambiguous d/m/Y, and relative text ("Posted Yesterday", "2 ngày trước")
    measured from `fetched_at`. Unparseable or vague input is unknown, never a guess.
    """
    if isinstance(value, bool):
        return None, "unknown"
    if isinstance(value, (int, float)):
        return parse_datetime(value)
    if not isinstance(value, str) or not value.strip():
        return None, "unknown"
    text = value.strip()
    match = _ISO_SPACE_UTC.match(text)
    if match:
        text = f"{match.group(1)}T{match.group(2)}+00:00"
    parsed, precision = parse_datetime(text)
    if parsed is not None:
        return parsed, precision
    slash = _SLASH_DATE.match(text)
    if slash:
        return _slash_date(*(int(g) for g in slash.groups()))
    return parse_relative_date(text, fetched_at)


def _slash_date(first: int, second: int, year: int) -> tuple[datetime | None, str]:
    # 05/06/2026 could be May or June: only a day above 12 tells which order it is.
    if first > 12 >= second:
        day, month = first, second
    elif second > 12 >= first:
        day, month = second, first
    else:
        return None, "unknown"
    try:
        return datetime(year, month, day, tzinfo=UTC), "day"
    except ValueError:
        return None, "unknown"


# ---------------------------------------------------------------- remote


_HYBRID = re.compile(r"\bhybrid\b|\bkết hợp\b|\blinh hoạt\b", re.I)
_REMOTE = re.compile(
    r"\bremote\b|\bfully[- ]remote\b|\bwork from home\b|\bwfh\b|\banywhere\b|\btelecommut\w*|"
    r"\btừ xa\b|\blàm việc tại nhà\b",
    re.I,
)


@lru_cache(maxsize=4096)  # pure; offices repeat across a board
def remote_from_text(text: str | None) -> str:
    """yes / hybrid / unknown from a location or work-mode label. Never "no": an
    office address does not prove the job cannot be done remotely."""
    if not text:
        return "unknown"
    if _HYBRID.search(text):
        return "hybrid"
    if _REMOTE.search(text):
        return "yes"
    return "unknown"


# ---------------------------------------------------------------- numbers and salaries


def parse_number(text: str) -> float | None:
    """ "65,000" / "50.000.000" / "4,5" / "1,000.50" / "10.5" -> float.

    A lone separator followed by exactly three digits groups thousands; otherwise
    it is the decimal mark (Vietnamese "4,5 Tr" is four and a half million).
    """
    text = text.strip()
    if not text or not re.fullmatch(r"\d+(?:[.,\s]\d+)*", text):
        return None
    text = text.replace(" ", "")
    if "," in text and "." in text:
        decimal = "," if text.rfind(",") > text.rfind(".") else "."
        thousands = "." if decimal == "," else ","
        text = text.replace(thousands, "").replace(decimal, ".")
    else:
        for sep in (",", "."):
            if sep not in text:
                continue
            parts = text.split(sep)
            if len(parts) > 2 or len(parts[-1]) == 3:
                text = text.replace(sep, "")
            else:
                text = text.replace(sep, ".")
    try:
        return float(text)
    except ValueError:
        return None


_NEGOTIABLE = re.compile(
    r"th(?:ỏa|oả|oa)\s*thu[ậa]n|thương\s*lượng|c[ạa]nh\s*tranh|negotiable|competitive|"
    r"depending on experience|\bDOE\b",
    re.I,
)
_CURRENCY_CODES = (
    "USD", "EUR", "GBP", "VND", "CAD", "AUD", "NZD", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK",
    "JPY", "SGD", "HKD", "INR", "CNY", "BRL", "MXN", "ZAR", "ILS", "AED", "KRW", "TWD", "HUF",
    "RON", "TRY", "PHP", "IDR", "MYR", "THB",
)  # fmt: skip
_CODE = re.compile(r"\b(" + "|".join(_CURRENCY_CODES) + r")\b", re.I)
_SYMBOLS = (("€", "EUR"), ("£", "GBP"), ("₫", "VND"), ("₹", "INR"), ("$", "USD"))
_VND_WORDS = re.compile(r"\b(?:vnđ|vnd|đồng)\b|\d\s*đ\b|triệu|\btr\b|tỷ", re.I)
_AMOUNT = re.compile(
    r"(?P<num>\d+(?:[.,]\d+)*)\s*(?P<unit>k\b|tr\b|triệu|tỷ|million\b|mil\b|m\b|mn\b)?", re.I
)
_MULTIPLIERS = {"k": 1e3, "tr": 1e6, "triệu": 1e6, "million": 1e6, "mil": 1e6, "m": 1e6, "mn": 1e6, "tỷ": 1e9}  # fmt: skip
_RANGE_BETWEEN = re.compile(r"^[\s$€£₫₹]*(?:[-–—~]|to|đến|tới|and)[\s$€£₫₹]*$", re.I)
_UP_TO = re.compile(r"(?:up to|tới|lên đến|lên tới|đến|max(?:imum)?|under|below|≤)\s*$", re.I)
_FROM = re.compile(r"(?:from|từ|starting at|min(?:imum)?|at least|over|trên|≥)\s*$", re.I)
_PERIODS = (
    ("hour", re.compile(r"/\s*(?:h|hr|hour|giờ)\b|per hour|an hour|hourly|\btheo giờ", re.I)),
    ("day", re.compile(r"/\s*(?:day|ngày)\b|per day|a day|daily", re.I)),
    ("week", re.compile(r"/\s*(?:wk|week|tuần)\b|per week|a week|weekly", re.I)),
    ("month", re.compile(r"/\s*(?:mo|month|tháng)\b|per month|a month|monthly|mỗi tháng", re.I)),
    (
        "year",
        re.compile(r"/\s*(?:yr|year|năm|annum)\b|per year|a year|annual|annually|p\.a\.", re.I),
    ),
)
_OTHER_UNIT = re.compile(r"/\s*[^\W\d_]+", re.I)


def salary_period(text: str | None) -> str | None:
    """year / month / week / day / hour when the text says so; None otherwise."""
    if not text:
        return None
    for period, pattern in _PERIODS:
        if pattern.search(text):
            return period
    return None


def currency_of(text: str, default: str | None = None) -> str | None:
    code = _CODE.search(text)
    if code:
        return code.group(1).upper()
    for symbol, name in _SYMBOLS:
        if symbol in text:
            return name
    if _VND_WORDS.search(text):
        return "VND"
    return default


def parse_salary_text(raw: str | None, *, period_hint: str | None = None) -> Salary | None:
    """A salary as written ("$65,000—$85,000 USD", "15 - 25 triệu", "Thỏa thuận",
    "Tới 1,000 USD", "27 k - 30 k /giờ") -> Salary with the raw text kept.

    Numbers, currency and period are filled only where the text states them;
    "negotiable" keeps the raw text alone; text with no figure is not a salary.
    """
    text = clean_space(unicodedata.normalize("NFC", raw)) if raw else None
    if not text:
        return None
    amounts = list(_AMOUNT.finditer(text))
    if not amounts:
        return Salary(raw=text) if _NEGOTIABLE.search(text) else None
    period = salary_period(text) or salary_period(period_hint)
    if period is None and _OTHER_UNIT.search(text.replace(" / ", " ")):
        return Salary(raw=text)  # "/sp" (per piece) and the like: no period we can name
    values = [_amount_value(m) for m in amounts[:2]]
    units = [m["unit"] for m in amounts[:2]]
    if len(values) == 2 and units[1] and not units[0]:
        values[0] = _amount_value(amounts[0], units[1])  # "15 - 25 triệu": the unit covers both
    low: float | None
    high: float | None
    if len(amounts) >= 2 and _RANGE_BETWEEN.match(text[amounts[0].end() : amounts[1].start()]):
        low, high = values[0], values[1]
    else:
        before = text[: amounts[0].start()]
        before = before.rstrip(" :$€£₫₹").rstrip()
        low = high = values[0]
        if _UP_TO.search(before):
            low = None
        elif _FROM.search(before):
            high = None
    if not low and not high:
        return Salary(raw=text)  # "0.0 - 0.0 triệu" is a placeholder, not a salary of zero
    if low is not None and high is not None and low > high:
        low, high = high, low
    return Salary(raw=text, min=low, max=high, currency=currency_of(text), period=period)


def _figure(value: float) -> str:
    return f"{value:,.2f}".rstrip("0").rstrip(".") if value % 1 else f"{value:,.0f}"


def salary_text(
    low: float | None, high: float | None, currency: str | None, period: str | None
) -> str:
    """Structured figures as a person would write them: "120,000–150,000 USD per year",
    "from 40 EUR per hour", "up to 5,000 GBP per month"."""
    if low is not None and high is not None and low != high:
        amount = f"{_figure(low)}–{_figure(high)}"
    elif low is not None:
        amount = _figure(low) if high is not None else f"from {_figure(low)}"
    else:
        amount = f"up to {_figure(high)}" if high is not None else ""
    words = [amount, currency or "", f"per {period}" if period else ""]
    return " ".join(w for w in words if w)


def _amount_value(match: re.Match[str], unit: str | None = None) -> float | None:
    number = parse_number(match["num"])
    if number is None:
        return None
    unit = (unit or match["unit"] or "").lower()
    return number * _MULTIPLIERS.get(unit, 1.0)
