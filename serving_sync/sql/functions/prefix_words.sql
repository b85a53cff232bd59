-- A prefix becomes the words it stands for. The last word of a query also matches as a
-- prefix ('engin' -> 'engin':*). In the text index that is a partial match: GIN reads the
-- posting lists of every lexeme under the prefix into one bitmap before anything else can
-- narrow it, so a common prefix with rare filters paid for the whole prefix ('sales':* and
-- three filters: 74-88 ms at 1M rows for 506 matches), and taking the rest's bitmap and
-- checking the text row by row detoasts one tsvector a row, about 1 ms each from a cold
-- disk. Written as the lexemes it covers ('engineer' | 'engineering'), the same query is
-- an ordinary GIN scan: its fast scan skips through the words' lists by the rarer
-- filters' (the same 506 matches: 18 ms), the bitmap of a common prefix alone is cheaper
-- to build ('engineer':*, 435,668 postings: 127 ms against 83 ms), and nothing is
-- detoasted. The words come from serving.lexicon (see lexicon_add).
-- A prefix covering more than 50 lexemes stays a partial match: GIN merges the lists of
-- all the entries of a query item by item, which gets slower than one bitmap as they
-- multiply. So does a prefix covering none (the partial match finds nothing, quickly).
--
-- The lexemes starting with `prefix`, as tsquery text ('a' | 'b'), or NULL when there are
-- none or more than 50. In byte order the lexemes with a prefix are one run starting at
-- the prefix itself, so the first 51 entries from there hold all of them, or show that
-- there are too many.
-- PL/pgSQL for its cached plan: as an SQL function it was planned on every call (0.07
-- against 0.02 ms a call, 200,000 rows), and every query with a prefix calls it.
CREATE OR REPLACE FUNCTION serving.prefix_words(prefix text) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
BEGIN
    RETURN (
        SELECT CASE WHEN count(*) FILTER (WHERE w.covered) BETWEEN 1 AND 50
                    THEN string_agg('''' || replace(replace(w.lexeme, '\', '\\'), '''', '''''') || '''',
                                    ' | ' ORDER BY w.lexeme) FILTER (WHERE w.covered) END
        FROM (SELECT l.lexeme, starts_with(l.lexeme, prefix_words.prefix COLLATE "C") AS covered
              FROM serving.lexicon l
              WHERE l.lexeme >= prefix_words.prefix COLLATE "C"
              ORDER BY l.lexeme LIMIT 51) AS w);
END
$$;
