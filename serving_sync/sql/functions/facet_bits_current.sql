-- Whether the bitmaps answer: a build exists, and the postings written since it are few
-- enough to count from their rows (see web_facet_bits).
CREATE OR REPLACE FUNCTION serving.facet_bits_current() RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
RETURN EXISTS (SELECT 1 FROM serving.facet_bits_build b
               WHERE serving.facet_dirty_ids(b.snapshot, b.dirty_max) IS NOT NULL);
