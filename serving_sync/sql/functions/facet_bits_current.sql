-- Whether the bitmaps were built from what serving.jobs holds now.
CREATE OR REPLACE FUNCTION serving.facet_bits_current() RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
RETURN EXISTS (SELECT 1 FROM serving.facet_bits_build b, serving.facet_writes w
               WHERE b.writes = w.writes);
