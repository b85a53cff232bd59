-- Nothing in serving is PUBLIC's. Functions are executable by PUBLIC by default, the sync's
-- helpers (fingerprints, tsvector builders, the bitmaps' internals) included, so that is
-- revoked from every function, and functions this owner creates from now on are not
-- executable by PUBLIC either (which also covers the moment between a function being
-- created and this file being applied again).
REVOKE CREATE ON SCHEMA serving FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA serving FROM PUBLIC;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA serving FROM PUBLIC;
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
-- Nor the type of the web functions' filters (a privilege to make objects of it; a call
-- that casts to it needs none).
REVOKE USAGE ON TYPE serving.web_filter FROM PUBLIC;
