-- A plain conjunction whose last operand is a prefix ('a' & 'b':*, as web_tsquery makes
-- it): the conjunction without that operand ('' when it was the only one). NULL for any
-- other query (OR, NOT, phrases, a quote inside a lexeme): it stays whole.
CREATE OR REPLACE FUNCTION serving.prefix_rest(tsq tsquery) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN tsq::text ~ '^''[^'']+''( & ''[^'']+'')*:\*$'
            THEN coalesce(substring(tsq::text FROM '^(.*) & ''[^'']+'':\*$'), '') END;
