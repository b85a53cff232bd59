-- a AND b, a NULL side being no condition.
CREATE OR REPLACE FUNCTION serving.tsquery_and(a tsquery, b tsquery) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a ELSE a && b END;
