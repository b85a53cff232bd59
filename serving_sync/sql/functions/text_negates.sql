-- Whether a text query holds an exclusion: a '!' outside its quoted lexemes (a filter
-- lexeme's value may hold one: '¦co=Yahoo!'). The text index (GIN) answers such a query
-- without checking the row, and can be wrong for it while its pending entries move into
-- its main structure (see web_where): those queries are checked on each row. IMMUTABLE
-- and plain SQL: with the query a constant (EXECUTE ... USING plans with the values) the
-- planner evaluates it once and the check on rows folds away for a query without one.
CREATE OR REPLACE FUNCTION serving.text_negates(tsq tsquery) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN regexp_replace(tsq::text, '''(?:[^''\\]|''''|\\.)*''', '', 'g') ~ '!';
