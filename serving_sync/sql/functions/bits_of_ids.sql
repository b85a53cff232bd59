-- The slots of these postings as a bitmap of n bits: the build's, and the delta's when
-- n reaches past the build (see live_bits). A written posting's old slot in the build
-- may be set too: web_facet_bits's every mask leaves those out.
CREATE OR REPLACE FUNCTION serving.bits_of_ids(ids bigint[], n integer) RETURNS varbit
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
RETURN serving.bits_of_slots(ARRAY(
    SELECT s.slot FROM serving.facet_slots s WHERE s.id = ANY (ids)
    UNION ALL
    SELECT d.slot FROM serving.facet_delta_slots d
    WHERE d.id = ANY (ids) AND n > (SELECT b.slots FROM serving.facet_bits_build b)), n);
