-- How many open postings a sitemap lists (serving.web_sitemap reads them in parts).
CREATE OR REPLACE FUNCTION serving.web_sitemap_size() RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
    SELECT count(*) FROM serving.jobs j WHERE j.status = 'active'
$$;
