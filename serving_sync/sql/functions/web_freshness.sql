-- Freshness per source as of the last applied sync (serving.freshness, written by
-- serving_sync.freshness inside the sync's transaction): the web role reads it only
-- through this.
CREATE OR REPLACE FUNCTION serving.web_freshness() RETURNS SETOF serving.freshness
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
    SELECT * FROM serving.freshness ORDER BY source
$$;
