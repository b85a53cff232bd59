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

-- The web role executes the web_* read functions (and fold), nothing else: the sync's
-- helpers (fingerprints, tsvector builders) were executable by PUBLIC by default. And
-- functions this owner creates from now on are not executable by PUBLIC either.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA serving FROM PUBLIC;
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
GRANT EXECUTE ON FUNCTION serving.web_freshness(), serving.fold(text) TO jobharbor_web;

-- Large objects are a write that default_transaction_read_only does not stop once a
-- session turns it off: no large objects for the web role. (Only an owner of these
-- catalog functions can revoke them; elsewhere PostgreSQL warns and changes nothing,
-- and the managed host's own defaults apply.)
REVOKE EXECUTE ON FUNCTION pg_catalog.lo_create(oid), pg_catalog.lo_creat(integer),
    pg_catalog.lo_from_bytea(oid, bytea), pg_catalog.lo_import(text),
    pg_catalog.lo_import(text, oid) FROM PUBLIC;
