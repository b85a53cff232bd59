-- Freshness per source, as of the last applied sync: written by the sync inside its own
-- transaction (serving_sync.freshness.publish), so it always describes exactly what
-- that sync made searchable. The web role reads it only through web_freshness().
CREATE TABLE serving.freshness (
    source               text PRIMARY KEY,
    computed_at          timestamptz NOT NULL,
    last_discover_at     timestamptz,
    last_fetch_at        timestamptz,
    last_parse_at        timestamptz,
    last_check_at        timestamptz,
    last_sync_at         timestamptz NOT NULL,
    published_recently   integer NOT NULL,
    lag_p50_s            double precision,
    lag_p95_s            double precision,
    lag_max_s            double precision,
    unpublished          integer NOT NULL,
    oldest_unpublished_s double precision,
    max_lag_s            double precision NOT NULL,
    lagging              boolean NOT NULL
);
ALTER TABLE serving.freshness ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON serving.freshness FROM PUBLIC, jobharbor_web;

CREATE FUNCTION serving.web_freshness() RETURNS SETOF serving.freshness
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
    SELECT * FROM serving.freshness ORDER BY source
$$;
REVOKE ALL ON FUNCTION serving.web_freshness() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION serving.web_freshness() TO jobharbor_web;
