-- One group's counts under a mask: the denominator (value NULL), then the values by
-- count (at most top_n, and 'unknown'). No rows when the answer would not be exact: a
-- group with values past its bitmaps whose top N cannot be shown to hold all of them.
CREATE OR REPLACE FUNCTION serving.group_bits(facet text, mask varbit, top_n integer)
RETURNS TABLE (value text, count bigint)
LANGUAGE plpgsql STABLE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    tail integer;
    counted text[];
    sizes bigint[];
BEGIN
    IF facet = 'company' THEN
        SELECT array_agg(c.value ORDER BY c.n DESC, c.value), array_agg(c.n ORDER BY c.n DESC, c.value)
        INTO counted, sizes
        FROM (SELECT f.value, bit_count(substring(mask FROM f.lo + 1 FOR f.size)) AS n
              FROM serving.facet_companies f) AS c
        WHERE c.n > 0;
    ELSE
        SELECT array_agg(c.value ORDER BY c.n DESC, c.value), array_agg(c.n ORDER BY c.n DESC, c.value)
        INTO counted, sizes
        FROM (SELECT b.value, bit_count(mask & b.bits) AS n
              FROM serving.facet_bits b WHERE b.facet = group_bits.facet) AS c
        WHERE c.n > 0;
    END IF;
    SELECT t.largest INTO tail FROM serving.facet_bits_tail t WHERE t.facet = group_bits.facet;
    IF top_n IS NOT NULL AND top_n < 1 THEN
        RETURN;
    END IF;
    IF tail IS NOT NULL THEN
        -- The N-th known value must beat every value without a bitmap (by count, strictly:
        -- a tie would be broken by name, which a missing value could win).
        IF top_n IS NULL OR coalesce(cardinality(array_remove(counted, 'unknown')), 0) < top_n
           OR (SELECT s.n FROM unnest(counted, sizes) AS s(v, n) WHERE s.v <> 'unknown'
               ORDER BY s.n DESC, s.v OFFSET top_n - 1 LIMIT 1) <= tail THEN
            RETURN;
        END IF;
    END IF;
    RETURN QUERY SELECT NULL::text, bit_count(mask);
    RETURN QUERY
        SELECT x.v, x.n
        FROM (SELECT s.v, s.n, s.place,
                     row_number() OVER (PARTITION BY s.v = 'unknown' ORDER BY s.place) AS k
              FROM unnest(counted, sizes) WITH ORDINALITY AS s(v, n, place)) AS x
        WHERE x.v = 'unknown' OR top_n IS NULL OR x.k <= top_n
        ORDER BY x.place;
END
$$;
