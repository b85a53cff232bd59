-- The web app's role: it logs in, reads through the web_* functions (grants/
-- jobharbor_web.sql) and nothing else. Its password is set by serving_sync.roles, never
-- here. A role belongs to the cluster, not to one database: this is applied in each
-- serving database, and the last one applied wins.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'jobharbor_web') THEN
        CREATE ROLE jobharbor_web LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
    END IF;
END
$$;
-- Bounded sessions: a runaway query, a forgotten transaction or a connection leak in the
-- web app cannot take the serving database down. Read-only is the default of its
-- transactions, which a session can switch off: the grants are what stop writes.
ALTER ROLE jobharbor_web SET statement_timeout = '3s';
ALTER ROLE jobharbor_web SET default_transaction_read_only = on;
ALTER ROLE jobharbor_web SET search_path = serving;
ALTER ROLE jobharbor_web SET idle_in_transaction_session_timeout = '10s';
ALTER ROLE jobharbor_web SET lock_timeout = '1s';
ALTER ROLE jobharbor_web CONNECTION LIMIT 20;
