-- A typed query with its prefix written as its words when the lexicon allows (see
-- prefix_words). The prefix is the last operand of the text form, a quoted lexeme (a quote
-- inside doubled, a backslash escaping the next character) and ':*'.
CREATE OR REPLACE FUNCTION serving.prefix_as_words(typed tsquery) RETURNS tsquery
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    plain text := typed::text;
    quoted text;
    words text;
BEGIN
    IF typed IS NULL OR right(plain, 2) <> ':*' THEN
        RETURN typed;
    END IF;
    quoted := substring(plain FROM '''(?:[^''\\]|''''|\\.)*'':\*$');
    words := serving.prefix_words(
        regexp_replace(substr(quoted, 2, length(quoted) - 4), '[''\\](.)', '\1', 'g'));
    IF words IS NULL THEN
        RETURN typed;
    END IF;
    RETURN (left(plain, length(plain) - length(quoted)) || '( ' || words || ' )')::tsquery;
END
$$;
