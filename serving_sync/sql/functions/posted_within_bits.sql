-- Dated within the last `days` by sort_at (posted, else the first-seen estimate; never
-- a posting of unknown age): the days left in the boundary's month
-- and the months after it from bitmaps, the boundary's own day row by row.
CREATE OR REPLACE FUNCTION serving.posted_within_bits(days integer, n integer) RETURNS varbit
LANGUAGE plpgsql STABLE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    boundary constant timestamptz := now() - make_interval(days => days);
    boundary_day constant date := (boundary AT TIME ZONE 'UTC')::date;
    found varbit;
BEGIN
    SELECT bit_or(b.bits) INTO found
    FROM serving.live_bits(n) b
    WHERE (b.facet = 'day' AND b.value > to_char(boundary_day, 'YYYY-MM-DD')
           AND b.value LIKE to_char(boundary_day, 'YYYY-MM') || '-%')
       OR (b.facet = 'sort_month' AND b.value > to_char(boundary_day, 'YYYY-MM'));
    found := coalesce(found, serving.bits_of_slots('{}', n));
    RETURN found | serving.bits_of_ids(ARRAY(
        SELECT j.id FROM serving.jobs j
        WHERE j.sort_at >= boundary
          AND j.sort_at < (boundary_day + 1)::timestamp AT TIME ZONE 'UTC'),
        n);
END
$$;
