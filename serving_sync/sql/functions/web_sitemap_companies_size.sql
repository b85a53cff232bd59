-- How many published companies a sitemap lists (serving.web_sitemap_companies reads
-- them in parts).
CREATE OR REPLACE FUNCTION serving.web_sitemap_companies_size() RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
    SELECT count(DISTINCT s.value) FROM serving.suggestions s
    WHERE s.kind = 'company' AND s.postings > 0
$$;
