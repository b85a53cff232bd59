-- The values a posting offers typeahead (serving.suggestions), as (kind, value): its
-- title and company, each skill (required or preferred), city and region, once each.
CREATE OR REPLACE FUNCTION serving.suggestion_values(
    title text, company text, skills text[], cities text[], regions text[]
) RETURNS TABLE (kind text, value text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
    SELECT 'title', title WHERE nullif(btrim(title), '') IS NOT NULL
    UNION ALL SELECT 'company', company WHERE nullif(btrim(company), '') IS NOT NULL
    UNION ALL SELECT DISTINCT 'skill', s FROM unnest(skills) AS s
    UNION ALL SELECT DISTINCT 'city', c FROM unnest(cities) AS c
    UNION ALL SELECT DISTINCT 'region', r FROM unnest(regions) AS r
$$;
