-- The bitmaps as n bits: the build's (its slots), and past them, when n is longer, the
-- delta's (facet_delta_bits: the postings written since, at slots past the build's),
-- zeros where one side has no bitmap for the value. `built`: the build has a bitmap for
-- it (a value of the delta only may be one past the build's kept values). Inlined, so
-- a caller's condition on facet and value picks the rows before any is put together.
CREATE OR REPLACE FUNCTION serving.live_bits(n integer)
RETURNS TABLE (facet text, value text, bits varbit, built boolean)
LANGUAGE sql STABLE
AS $$
    SELECT b.facet, b.value,
           CASE WHEN n > x.slots
                THEN b.bits || coalesce(d.bits, repeat('0', n - x.slots)::varbit)
                ELSE b.bits END,
           true
    FROM serving.facet_bits b
    CROSS JOIN serving.facet_bits_build x
    LEFT JOIN serving.facet_delta_bits d ON n > x.slots AND d.facet = b.facet AND d.value = b.value
    UNION ALL
    SELECT d.facet, d.value, lpad('', x.slots, '0')::varbit || d.bits, false
    FROM serving.facet_delta_bits d
    CROSS JOIN serving.facet_bits_build x
    WHERE n > x.slots
      AND NOT EXISTS (SELECT 1 FROM serving.facet_bits b WHERE b.facet = d.facet AND b.value = d.value)
$$;
