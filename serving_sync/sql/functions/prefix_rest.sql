-- A plain conjunction whose last operand is a prefix ('a' & 'b':*, as web_tsquery makes
-- it): the conjunction without that operand ('' when it was the only one). A word's
-- operand may be the group of it and its stems (serving.word_tsquery: ( 'a' | '~en:a' ),
-- the prefix first in its own group, ( 'b':* | '~en:b' )); the rest keeps its groups.
-- NULL for any other query (OR between alternatives, NOT, phrases, a quote inside a
-- lexeme): it stays whole.
CREATE OR REPLACE FUNCTION serving.prefix_rest(tsq tsquery) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE
    -- The prefix alone, with its stems or not.
    WHEN tsq::text ~ '^''[^'']+'':\*( \| ''[^'']+'')*$' THEN ''
    -- Words (alone or in their stem groups), then the prefix (alone or in its group).
    WHEN tsq::text ~ ('^(''[^'']+''|\( ''[^'']+''( \| ''[^'']+'')* \))'
                      || '( & (''[^'']+''|\( ''[^'']+''( \| ''[^'']+'')* \)))*'
                      || ' & (''[^'']+'':\*|\( ''[^'']+'':\*( \| ''[^'']+'')* \))$')
        THEN substring(tsq::text FROM
            '^(.*) & (?:''[^'']+'':\*|\( ''[^'']+'':\*(?: \| ''[^'']+'')* \))$')
END;
