-- A typed query with each prefix written as its words when the lexicon allows (see
-- prefix_words); a prefix it does not allow stays a partial match. Stems no posting has
-- go (serving.known_stems). A prefix is an
-- operand of the text form written as a quoted lexeme (a quote inside doubled, a
-- backslash escaping the next character) and ':*'; the query has one per OR alternative
-- at most (see typed_tsquery).
CREATE OR REPLACE FUNCTION serving.prefix_as_words(typed tsquery) RETURNS tsquery
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    plain text := typed::text;
    written text := '';
    part text;
    words text;
BEGIN
    IF typed IS NULL OR position(':*' IN plain) = 0 THEN
        RETURN serving.known_stems(typed);
    END IF;
    -- The text form as its quoted lexemes (with a prefix mark or not) and what lies between.
    FOR part IN
        SELECT m[1] FROM regexp_matches(plain, '(''(?:[^''\\]|''''|\\.)*''(?::\*)?|[^'']+)', 'g') AS m
    LOOP
        words := NULL;
        IF right(part, 2) = ':*' THEN
            words := serving.prefix_words(
                regexp_replace(substr(part, 2, length(part) - 4), '[''\\](.)', '\1', 'g'));
        END IF;
        written := written || CASE WHEN words IS NULL THEN part ELSE '( ' || words || ' )' END;
    END LOOP;
    RETURN serving.known_stems(written::tsquery);
END
$$;
