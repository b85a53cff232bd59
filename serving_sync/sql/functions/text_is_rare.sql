-- Is the text query rare enough that reading all its matches from the text index and
-- keeping the newest `page_rows` beats walking the newest-first list until the page is
-- full (see web_search)? The first reads every match (m of them); the second about
-- page_rows * N / m postings, each with its text checked. Their costs cross near
-- m = sqrt(page_rows * N): 4,600 postings for a page of 21 at 1M rows.
--
-- m is estimated as the planner estimates a text condition, from the shares the last
-- ANALYZE found (serving.lexeme_shares, kept by the sync) and not from the planner
-- itself: planning reads and searches the column's whole statistics array on every
-- call. Each operand counts its share (one not listed half the smallest share listed,
-- the planner's guess), summed over the operands: an OR's estimate, more than an AND's
-- or a phrase's. False when there is nothing to go by: no shares kept yet, or an
-- operand whose share this does not know (a negation, a prefix, a weight).
CREATE OR REPLACE FUNCTION serving.text_is_rare(tsq tsquery, page_rows integer) RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    plain constant text := tsq::text;
    -- An operand of the text form: a quoted lexeme, a quote inside doubled, a
    -- backslash escaping the next character (see prefix_as_words).
    quoted constant text := '''((?:[^''\\]|''''|\\.)*)''';
    smallest real;
    total real;
    share double precision;
BEGIN
    IF tsq IS NULL OR regexp_replace(plain, quoted, '', 'g') ~ '[!:]' THEN
        RETURN false;  -- a negation, or a prefix or weight (':*', ':A') after an operand
    END IF;
    SELECT l.share INTO smallest FROM serving.lexeme_shares l WHERE l.lexeme = '';
    SELECT c.reltuples INTO total FROM pg_class c WHERE c.oid = 'serving.jobs'::regclass;
    IF smallest IS NULL OR total IS NULL OR total <= 0 THEN
        RETURN false;
    END IF;
    SELECT sum(coalesce(l.share, smallest / 2)) INTO share
    FROM regexp_matches(plain, quoted, 'g') AS m
    LEFT JOIN serving.lexeme_shares l
           ON l.lexeme = regexp_replace(m[1], '[''\\](.)', '\1', 'g') COLLATE "C";
    RETURN share * total <= sqrt(page_rows * total::double precision);
END
$$;
