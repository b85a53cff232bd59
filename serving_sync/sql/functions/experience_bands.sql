-- The experience bands a posting counts in (see experience_range); 'unknown' without
-- any bound.
CREATE OR REPLACE FUNCTION serving.experience_bands(lo integer, hi integer) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN lo IS NULL AND hi IS NULL THEN ARRAY['unknown'] ELSE ARRAY(
    SELECT b.v FROM (VALUES (1, '0-1', int4range(0, 1, '[]')), (2, '2-4', int4range(2, 4, '[]')),
                            (3, '5-9', int4range(5, 9, '[]')), (4, '10+', int4range(10, 40, '[]')))
                    AS b(n, v, r)
    WHERE b.r && serving.experience_range(lo, hi) ORDER BY b.n) END;
