"""Vietnamese job-site locations: province names, multi-province strings and counts.

Real values (TopCV, CareerViet, VietnamWorks, ITviec scrapes) look like
"Hà Nội & 2 nơi khác", "Hà Nội, Hồ Chí Minh", "Hà Nội Hồ Chí Minh" (no
separator), "Ho Chi Minh - Ha Noi" and "Bà Rịa-Vũng Tàu" (a dash inside one
province). Names are matched by a folded key (no diacritics, no punctuation), so
"Ha Noi", "Hà Nội" and "HÀ NỘI" are one province; what matches no province is
kept as written, never dropped and never guessed.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from parsers.types import RawOffice

COUNTRY = "Vietnam"

# The 63 provinces and centrally-run cities (before the 2025 merger; the merged
# provinces keep one of these names), with the spellings sites use.
PROVINCES: dict[str, tuple[str, ...]] = {
    "An Giang": (),
    "Bà Rịa - Vũng Tàu": ("Bà Rịa Vũng Tàu", "BR-VT", "Vũng Tàu"),
    "Bạc Liêu": (),
    "Bắc Giang": (),
    "Bắc Kạn": ("Bắc Cạn",),
    "Bắc Ninh": (),
    "Bến Tre": (),
    "Bình Dương": (),
    "Bình Định": (),
    "Bình Phước": (),
    "Bình Thuận": (),
    "Cà Mau": (),
    "Cao Bằng": (),
    "Cần Thơ": (),
    "Đà Nẵng": ("Danang",),
    "Đắk Lắk": ("Đắc Lắc", "Dak Lak", "Daklak"),
    "Đắk Nông": ("Đắc Nông", "Dak Nong"),
    "Điện Biên": (),
    "Đồng Nai": (),
    "Đồng Tháp": (),
    "Gia Lai": (),
    "Hà Giang": (),
    "Hà Nam": (),
    "Hà Nội": ("Hanoi", "TP Hà Nội", "Thành phố Hà Nội"),
    "Hà Tĩnh": (),
    "Hải Dương": (),
    "Hải Phòng": ("Haiphong",),
    "Hậu Giang": (),
    "Hòa Bình": (),
    "Hồ Chí Minh": (
        "TP.HCM",
        "TP HCM",
        "TPHCM",
        "HCM",
        "HCMC",
        "Ho Chi Minh City",
        "Thành phố Hồ Chí Minh",
        "Sài Gòn",
        "Saigon",
    ),
    "Hưng Yên": (),
    "Khánh Hòa": (),
    "Kiên Giang": (),
    "Kon Tum": (),
    "Lai Châu": (),
    "Lạng Sơn": (),
    "Lào Cai": (),
    "Lâm Đồng": (),
    "Long An": (),
    "Nam Định": (),
    "Nghệ An": (),
    "Ninh Bình": (),
    "Ninh Thuận": (),
    "Phú Thọ": (),
    "Phú Yên": (),
    "Quảng Bình": (),
    "Quảng Nam": (),
    "Quảng Ngãi": (),
    "Quảng Ninh": (),
    "Quảng Trị": (),
    "Sóc Trăng": (),
    "Sơn La": (),
    "Tây Ninh": (),
    "Thái Bình": (),
    "Thái Nguyên": (),
    "Thanh Hóa": (),
    "Thừa Thiên Huế": ("Huế", "Hue"),
    "Tiền Giang": (),
    "Trà Vinh": (),
    "Tuyên Quang": (),
    "Vĩnh Long": (),
    "Vĩnh Phúc": (),
    "Yên Bái": (),
}

# Words that carry no place: separators spelled out, the country, "province"/"city".
_NOISE = frozenset(
    ["va", "and", "tinh", "thanh", "pho", "tp", "viet", "nam", "vietnam", "vn", "city", "province"]
)  # compared folded
_COUNT = re.compile(
    r"(?:&|\+|\bvà\b|\band\b)?\s*(\d{1,3})\s*\+?\s*(?:nơi khác|địa điểm khác|địa điểm|"
    r"other locations?|more locations?|locations?)\b",
    re.I,
)
_OTHERS = re.compile(r"(?:^|[\s,;&|-])(?:others?|khác|nơi khác)\s*$", re.I)


_ALNUM = re.compile(r"[a-z0-9]+")
_WORD = re.compile(r"[^\W_]+(?:\.[^\W_]+)*")


def fold(text: str) -> str:
    """Case-, accent- and punctuation-free key: "Hà Nội" and "HA NOI" -> "ha noi"."""
    text = unicodedata.normalize("NFD", text.replace("đ", "d").replace("Đ", "D"))
    text = "".join(c for c in text if unicodedata.category(c) != "Mn").lower()
    return " ".join(_ALNUM.findall(text))


@lru_cache(maxsize=1)
def _index() -> tuple[dict[tuple[str, ...], str], int]:
    keys: dict[tuple[str, ...], str] = {}
    for name, aliases in PROVINCES.items():
        for spelling in (name, *aliases):
            keys[tuple(fold(spelling).split())] = name
    return keys, max(len(k) for k in keys)


# Memoized: location strings repeat the same few hundred words (place names), and
# folding walks every character in Python.
_fold_word = lru_cache(maxsize=8192)(fold)


def _words(text: str) -> list[tuple[str, str, int, int]]:
    """(as written, folded, start, end) for every word."""
    out = []
    for match in _WORD.finditer(text):
        key = _fold_word(match.group(0))
        if key:
            out.append((match.group(0), key, match.start(), match.end()))
    return out


# Memoized: a site's pages name the same few hundred location strings, the answer is
# frozen offices, and reading one walks its words against every province spelling.
@lru_cache(maxsize=4096)
def split_locations(text: str | None) -> tuple[tuple[RawOffice, ...], int] | None:
    """Offices and an unnamed-office count from a Vietnamese location string, or
    None when the string names no Vietnamese province (leave it to the caller)."""
    if not text:
        return None
    text = unicodedata.normalize("NFC", text)
    more = 0
    count = _COUNT.search(text)
    if count:
        more = int(count.group(1))
        text = (text[: count.start()] + text[count.end() :]).strip()
    if _OTHERS.search(text):
        more = max(more, 1)
        text = _OTHERS.sub("", text).strip()
    keys, longest = _index()
    words = _words(text)
    offices: list[RawOffice] = []
    leftover: list[str] = []
    i = 0
    while i < len(words):
        for size in range(min(longest, len(words) - i), 0, -1):
            key = tuple(w[1] for w in words[i : i + size])
            name = keys.get(tuple(" ".join(key).split()))
            if name:
                written = text[words[i][2] : words[i + size - 1][3]]
                _flush(leftover, offices)
                office = RawOffice(text=written, region=name, country=COUNTRY)
                if all(o.region != name for o in offices):
                    offices.append(office)
                i += size
                break
        else:
            if words[i][1] not in _NOISE:
                leftover.append(words[i][0])
            else:
                _flush(leftover, offices)
            i += 1
    _flush(leftover, offices)
    if not any(o.region for o in offices) and not count:
        return None
    return tuple(offices), more


def _flush(leftover: list[str], offices: list[RawOffice]) -> None:
    """Words between provinces that name none ("KV Bắc Trung Bộ") stay as written."""
    if leftover:
        offices.append(RawOffice(text=" ".join(leftover)))
        leftover.clear()
