-- serving schema v12: a prefix becomes the words it stands for.
--
-- The last word of a query also matches as a prefix ('engin' -> 'engin':*). In the text
-- index that is a partial match: GIN reads the posting lists of every lexeme under the
-- prefix into one bitmap before anything else can narrow it, so a common prefix with
-- rare filters paid for the whole prefix ('sales':* and three filters: 74-88 ms at 1M
-- rows for 506 matches), and v11's way around it (take the rest's bitmap, check the text
-- row by row) detoasts one tsvector a row, about 1 ms each from a cold disk.
--
-- Written as the lexemes it covers ('engineer' | 'engineering'), the same query is an
-- ordinary GIN scan: its fast scan skips through the words' lists by the rarer filters'
-- (the same 506 matches: 18 ms), the bitmap of a common prefix alone is cheaper to build
-- ('engineer':*, 435,668 postings: 127 ms against 83 ms), and nothing is detoasted.
--
-- serving.lexicon holds every lexeme of every search_tsv ever written: a statement
-- trigger adds the new ones after each INSERT or UPDATE (one set-based insert per
-- statement, not one per row). It only grows, so it is a superset of the lexemes in
-- serving.jobs; a lexeme no posting has any more adds a term that matches nothing, and
-- the expansion is still exactly the prefix. serving.rebuild_lexicon() trims it.
--
-- A prefix covering more than 50 lexemes stays a partial match: GIN merges the lists of
-- all the entries of a query item by item, which gets slower than one bitmap as they
-- multiply. So does a prefix covering none (the partial match finds nothing, quickly).
CREATE TABLE serving.lexicon (
    lexeme text COLLATE "C" PRIMARY KEY  -- byte order, as tsquery compares a prefix
);
ALTER TABLE serving.lexicon ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON serving.lexicon FROM PUBLIC, jobharbor_web;

INSERT INTO serving.lexicon (lexeme)
SELECT s.word FROM ts_stat('SELECT search_tsv FROM serving.jobs') AS s
ON CONFLICT DO NOTHING;

CREATE FUNCTION serving.lexicon_add() RETURNS trigger
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
BEGIN
    -- In order: two writers adding the same new words take their locks in the same order,
    -- so one waits for the other instead of deadlocking.
    INSERT INTO serving.lexicon (lexeme)
    SELECT DISTINCT w.lexeme COLLATE "C"
    FROM written_rows r CROSS JOIN LATERAL unnest(tsvector_to_array(r.search_tsv)) AS w(lexeme)
    ORDER BY 1
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION serving.lexicon_add() FROM PUBLIC;

-- Two triggers: a trigger with transition tables takes one event.
CREATE TRIGGER jobs_lexicon_insert AFTER INSERT ON serving.jobs
    REFERENCING NEW TABLE AS written_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.lexicon_add();
CREATE TRIGGER jobs_lexicon_update AFTER UPDATE ON serving.jobs
    REFERENCING NEW TABLE AS written_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.lexicon_add();

-- The lexicon as it would be built today: the lexemes of the postings now in
-- serving.jobs (a full pass over the table: ~45 s at 1M rows). Returns how many went.
CREATE FUNCTION serving.rebuild_lexicon() RETURNS bigint
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
DECLARE
    removed bigint;
BEGIN
    LOCK TABLE serving.jobs IN SHARE MODE;  -- no write may add a lexeme meanwhile
    CREATE TEMPORARY TABLE lexicon_now ON COMMIT DROP AS
        SELECT s.word COLLATE "C" AS lexeme FROM ts_stat('SELECT search_tsv FROM serving.jobs') AS s;
    DELETE FROM serving.lexicon l
    WHERE NOT EXISTS (SELECT 1 FROM lexicon_now n WHERE n.lexeme = l.lexeme);
    GET DIAGNOSTICS removed = ROW_COUNT;
    INSERT INTO serving.lexicon (lexeme) SELECT n.lexeme FROM lexicon_now n ON CONFLICT DO NOTHING;
    DROP TABLE lexicon_now;
    RETURN removed;
END
$$;
REVOKE ALL ON FUNCTION serving.rebuild_lexicon() FROM PUBLIC;

-- The lexemes starting with `prefix`, as tsquery text ('a' | 'b'), or NULL when there are
-- none or more than 50. In byte order the lexemes with a prefix are one run starting at
-- the prefix itself, so the first 51 entries from there hold all of them, or show that
-- there are too many.
CREATE FUNCTION serving.prefix_words(prefix text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
    SELECT CASE WHEN count(*) FILTER (WHERE w.covered) BETWEEN 1 AND 50
                THEN string_agg('''' || replace(replace(w.lexeme, '\', '\\'), '''', '''''') || '''',
                                ' | ' ORDER BY w.lexeme) FILTER (WHERE w.covered) END
    FROM (SELECT l.lexeme, starts_with(l.lexeme, prefix COLLATE "C") AS covered
          FROM serving.lexicon l
          WHERE l.lexeme >= prefix COLLATE "C"
          ORDER BY l.lexeme LIMIT 51) AS w
$$;
REVOKE ALL ON FUNCTION serving.prefix_words(text) FROM PUBLIC;

-- As v7, with the prefix written as its words when the lexicon allows (see above). The
-- last operand of the query's text form is its last quoted lexeme, where a quote inside
-- is doubled and a backslash escapes the next character. SECURITY DEFINER: the web role,
-- which may call it, reads no table itself (and STABLE: it cannot write).
CREATE OR REPLACE FUNCTION serving.web_tsquery(query text, last_is_prefix boolean)
RETURNS tsquery
LANGUAGE plpgsql STABLE PARALLEL SAFE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
DECLARE
    parsed tsquery := websearch_to_tsquery('simple', serving.fold(coalesce(query, '')));
    plain text := parsed::text;
    quoted text;
    words text;
BEGIN
    IF plain = '' THEN
        RETURN NULL;  -- nothing searchable (only punctuation, say): no text condition
    END IF;
    IF NOT last_is_prefix OR right(plain, 1) <> '''' THEN
        RETURN parsed;
    END IF;
    quoted := substring(plain FROM '''(?:[^''\\]|''''|\\.)*''$');
    words := serving.prefix_words(
        regexp_replace(substr(quoted, 2, length(quoted) - 2), '[''\\](.)', '\1', 'g'));
    IF words IS NULL THEN
        RETURN (plain || ':*')::tsquery;
    END IF;
    RETURN (left(plain, length(plain) - length(quoted)) || '( ' || words || ' )')::tsquery;
END
$$;
