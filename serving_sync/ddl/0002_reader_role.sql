-- The web app's role: read-only, bounded queries, nothing outside `serving`.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'jobharbor_web') THEN
        CREATE ROLE jobharbor_web LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
    END IF;
END
$$;
ALTER ROLE jobharbor_web SET statement_timeout = '5s';
ALTER ROLE jobharbor_web SET default_transaction_read_only = on;
ALTER ROLE jobharbor_web SET search_path = serving;
REVOKE ALL ON SCHEMA public FROM jobharbor_web;
GRANT USAGE ON SCHEMA serving TO jobharbor_web;
GRANT SELECT ON serving.jobs, serving.sync_runs TO jobharbor_web;
GRANT EXECUTE ON FUNCTION serving.search_jobs(text, integer), serving.fold(text) TO jobharbor_web;
