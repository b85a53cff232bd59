-- The slots of these postings as a bitmap of n bits.
CREATE OR REPLACE FUNCTION serving.bits_of_ids(ids bigint[], n integer) RETURNS varbit
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
RETURN serving.bits_of_slots(ARRAY(SELECT s.slot FROM serving.facet_slots s WHERE s.id = ANY (ids)), n);
