-- Slots as a bitmap of n bits, in any order.
CREATE OR REPLACE FUNCTION serving.bits_of_slots(slots integer[], n integer) RETURNS varbit
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
    SELECT rpad(coalesce(string_agg(lpad('1', x.gap, '0'), '' ORDER BY x.slot), ''), n, '0')::varbit
    FROM (SELECT s.slot, s.slot - coalesce(lag(s.slot) OVER (ORDER BY s.slot), -1) AS gap
          FROM unnest(slots) AS s(slot)) AS x
$$;
