-- The experience bands of the facet and stats: a posting counts in every band its
-- range [min, max] overlaps (a missing max is open-ended: "5+ years" overlaps 10+).
CREATE OR REPLACE FUNCTION serving.experience_range(lo integer, hi integer) RETURNS int4range
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN lo IS NULL AND hi IS NULL THEN NULL
            ELSE int4range(coalesce(lo, 0), coalesce(hi, 40), '[]') END;
