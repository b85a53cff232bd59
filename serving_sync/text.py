"""Text folding shared by the serving schema (SQL) and Python: lowercase, no diacritics.

"Hà Nội", "ha noi" and "HA NOI" must find each other. PostgreSQL's unaccent
extension is not everywhere (the embedded cluster lacks it), so folding is a
plain IMMUTABLE translate() whose character table is generated from here.
"""

from __future__ import annotations

import unicodedata

# Accented Latin letters (Latin-1, Latin Extended-A/B, Vietnamese) -> base letter.
FOLD_FROM = (
    "àÀáÁÂâÃãÄäÅåÇçÈèéÉÊêËëÌìíÍîÎïÏðÐñÑÒòÓóÔôÕõöÖøØùÙÚúûÛÜüÝýÿŸĀā"
    "ăĂąĄćĆĈĉċĊčČĎďĐđēĒĔĕĖėęĘĚěĝĜĞğĠġģĢĤĥħĦĨĩĪīĬĭįĮıĴĵķĶĹĺļĻĽľłŁŃ"
    "ńņŅŇňōŌŏŎőŐŔŕŗŖŘřśŚŜŝşŞšŠŢţťŤŦŧŨũŪūŬŭŮůűŰŲųŴŵŷŶźŹżŻžŽſơƠƯưǍǎ"
    "ǏǐǑǒǓǔǕǖǗǘǙǚǜǛǟǞǡǠǦǧǩǨǪǫǬǭǰǴǵǹǸǺǻȀȁȃȂȄȅȇȆȉȈȋȊȍȌȏȎȑȐȓȒȔȕȖȗȘșȚ"
    "țȞȟȧȦȨȩȪȫȬȭȮȯȱȰȳȲḁḀḃḂḅḄḇḆḈḉḊḋḌḍḎḏḑḐḓḒḔḕḗḖḙḘḚḛḜḝḞḟḡḠḣḢḥḤḧḦḨḩḪ"
    "ḫḬḭḮḯḱḰḳḲḵḴḶḷḹḸḺḻḽḼḿḾṀṁṃṂṄṅṆṇṈṉṋṊṌṍṎṏṐṑṒṓṕṔṗṖṘṙṛṚṜṝṞṟṡṠṢṣṤṥṦ"
    "ṧṨṩṫṪṭṬṯṮṰṱṲṳṴṵṷṶṸṹṺṻṽṼṿṾẁẀẃẂẅẄẆẇẈẉẋẊẌẍẏẎẐẑẒẓẕẔẖẗẘẙẛẠạảẢẤấầẦ"
    "ẨẩẫẪẬậẮắằẰẳẲẵẴặẶẸẹẺẻẼẽẾếỀềểỂễỄỆệỉỈịỊỌọỏỎốỐồỒổỔỗỖộỘớỚờỜởỞỡỠợỢ"
    "ỤụủỦứỨỪừửỬữỮựỰỳỲỵỴỶỷỹỸ"
)
FOLD_TO = (
    "aaaaaaaaaaaacceeeeeeeeiiiiiiiiddnnoooooooooooouuuuuuuuyyyyaa"
    "aaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiijjkklllllllln"
    "nnnnnoooooorrrrrrssssssssttttttuuuuuuuuuuuuwwyyzzzzzzsoouuaa"
    "iioouuuuuuuuuuaaaaggkkoooojggnnaaaaaaeeeeiiiioooorrrruuuusst"
    "thhaaeeooooooooyyaabbbbbbccddddddddddeeeeeeeeeeffgghhhhhhhhh"
    "hiiiikkkkkkllllllllmmmmmmnnnnnnnnoooooooopppprrrrrrrrsssssss"
    "sssttttttttuuuuuuuuuuvvvvwwwwwwwwwwxxxxyyzzzzzzhtwysaaaaaaaa"
    "aaaaaaaaaaaaaaaaeeeeeeeeeeeeeeeeiiiioooooooooooooooooooooooo"
    "uuuuuuuuuuuuuuyyyyyyyy"
)
assert len(FOLD_FROM) == len(FOLD_TO)
_TABLE = str.maketrans(FOLD_FROM, FOLD_TO)


def fold(text: str | None) -> str:
    """The same folding as SQL `serving.fold(text)`."""
    if not text:
        return ""
    return unicodedata.normalize("NFC", text).translate(_TABLE).lower()


def sql_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def unaccent(text: str | None) -> str | None:
    """`fold` without the lowercasing, which SQL applies (serving.search_tsv_of): the
    sync strips diacritics here, at a fraction of translate()'s cost in SQL."""
    if text is None:
        return None
    return unicodedata.normalize("NFC", text).translate(_TABLE)
