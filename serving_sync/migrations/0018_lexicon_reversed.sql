-- The lexicon read from the end of its words, for typo correction (serving.web_spelling):
-- a long word with a typo near its start still shares its last letters with the word
-- meant, and this index finds those words by a range scan, as the primary key finds the
-- words sharing the first letters. reverse() keeps the column's "C" collation, so the
-- range compares bytes, as the primary key's does.
CREATE INDEX lexicon_reversed_idx ON serving.lexicon (reverse(lexeme));
