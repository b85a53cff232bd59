-- One group's filter: any of its values. An empty list matches nothing, as "= ANY ('{}')"
-- does ('¦' alone is no posting's lexeme).
CREATE OR REPLACE FUNCTION serving.filter_query(grp text, vals text[]) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN coalesce(
    (SELECT string_agg(serving.lexeme_query(serving.filter_lexeme(grp, v))::text, ' | ')
     FROM unnest(vals) AS v)::tsquery,
    serving.lexeme_query('¦'));
