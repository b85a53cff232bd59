-- One group's counts under a mask: the denominator (value NULL), then the values by
-- count (at most top_n, and 'unknown'). No rows when the answer would not be exact: a
-- group with values past its bitmaps whose top N cannot be shown to hold all of them.
-- `extra` adds the counts of the postings outside the bitmaps (written since the build,
-- counted from their rows: dirty_facet_counts's rows of this group, the denominator as
-- value NULL). A value they name that has no bitmap in a group with values past its
-- bitmaps may have more postings in the bitmaps than they count: it is never listed,
-- and the top N must beat it too ('unknown' always has its bitmap when it has postings
-- there).
CREATE OR REPLACE FUNCTION serving.group_bits(
    facet text, mask varbit, top_n integer, extra_values text[] DEFAULT '{}',
    extra_counts bigint[] DEFAULT '{}'
) RETURNS TABLE (value text, count bigint)
LANGUAGE plpgsql STABLE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    tail integer;
    counted text[];
    sizes bigint[];
    known boolean[];  -- the value has a bitmap (or the group has no values past them)
    added bigint := coalesce((SELECT e.n FROM unnest(extra_values, extra_counts) AS e(v, n)
                              WHERE e.v IS NULL), 0);
BEGIN
    SELECT t.largest INTO tail FROM serving.facet_bits_tail t WHERE t.facet = group_bits.facet;
    WITH based AS (
        SELECT f.value, bit_count(substring(mask FROM f.lo + 1 FOR f.size)) AS n
        FROM serving.facet_companies f WHERE group_bits.facet = 'company'
        UNION ALL
        SELECT b.value, bit_count(mask & b.bits)
        FROM serving.facet_bits b WHERE b.facet = group_bits.facet AND group_bits.facet <> 'company'
    ), summed AS (
        SELECT coalesce(b.value, e.v) AS value, coalesce(b.n, 0) + coalesce(e.n, 0) AS n,
               b.value IS NOT NULL OR tail IS NULL OR e.v = 'unknown' AS known
        FROM based b
        FULL JOIN (SELECT * FROM unnest(extra_values, extra_counts) AS x(v, n) WHERE x.v IS NOT NULL)
            AS e ON e.v = b.value
    )
    SELECT array_agg(c.value ORDER BY c.n DESC, c.value), array_agg(c.n ORDER BY c.n DESC, c.value),
           array_agg(c.known ORDER BY c.n DESC, c.value)
    INTO counted, sizes, known
    FROM summed c
    WHERE c.n > 0;
    IF top_n IS NOT NULL AND top_n < 1 THEN
        RETURN;
    END IF;
    IF tail IS NOT NULL THEN
        -- The N-th known value must beat every value without a bitmap (by count, strictly:
        -- a tie would be broken by name, which a missing value could win): the largest of
        -- them had `tail` postings at the build, plus at most what the rows add to one.
        tail := tail + coalesce((SELECT max(s.n) FROM unnest(sizes, known) AS s(n, k) WHERE NOT s.k), 0);
        IF top_n IS NULL
           OR (SELECT count(*) FROM unnest(counted, known) AS s(v, k) WHERE s.k AND s.v <> 'unknown') < top_n
           OR (SELECT s.n FROM unnest(counted, sizes, known) AS s(v, n, k) WHERE s.k AND s.v <> 'unknown'
               ORDER BY s.n DESC, s.v OFFSET top_n - 1 LIMIT 1) <= tail THEN
            RETURN;
        END IF;
    END IF;
    RETURN QUERY SELECT NULL::text, bit_count(mask) + added;
    RETURN QUERY
        SELECT x.v, x.n
        FROM (SELECT s.v, s.n, s.place,
                     row_number() OVER (PARTITION BY s.v = 'unknown' ORDER BY s.place) AS k
              FROM unnest(counted, sizes, known) WITH ORDINALITY AS s(v, n, known, place)
              WHERE s.known) AS x
        WHERE x.v = 'unknown' OR top_n IS NULL OR x.k <= top_n
        ORDER BY x.place;
END
$$;
