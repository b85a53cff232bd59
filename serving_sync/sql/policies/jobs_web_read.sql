-- Row level security is on for every serving table (Supabase-style deployments, where API
-- roles would otherwise see every table), with this read policy for the web role only;
-- the owner (the sync) is not subject to it. The web role has no grant on the table: it
-- reads through the web_* functions, which run as the owner.
DROP POLICY IF EXISTS jobs_web_read ON serving.jobs;
CREATE POLICY jobs_web_read ON serving.jobs FOR SELECT TO jobharbor_web USING (true);
