-- The counts of the unfiltered context (the landing page; and, disjunctively, the own
-- group of any request with a single filter) are a full pass over every published
-- posting: seconds at 1M rows, past any request budget. They only change when the sync
-- writes, so the sync computes them once, inside its transaction, after it wrote
-- (serving_sync.facet_totals); web_facet and web_facets_all read them while
-- serving.facet_totals holds them, and count live otherwise (a fresh database, an empty
-- table: the same numbers). 'all' rows: web_facets_all's answer without filters and
-- without top_n; 'one' rows: web_facet's for the enrichment groups (the parse groups' own
-- counts are the 'all' rows plus the total as denominator).
CREATE OR REPLACE FUNCTION serving.refresh_facet_totals() RETURNS void
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
DECLARE
    unfiltered serving.web_filter;  -- no filter (skills matched as the web app's default)
BEGIN
    unfiltered.skill_match := 'any';
    unfiltered.skill_scope := 'required';
    DELETE FROM serving.facet_totals;  -- empty: the functions below count live
    -- The 'one' rows first: once 'all' rows exist, web_facet reads the table.
    INSERT INTO serving.facet_totals (kind, facet, value, count)
    SELECT 'one', g.facet, f.value, f.count
    FROM unnest(ARRAY['skill', 'experience', 'seniority', 'enrichment']) AS g(facet)
    CROSS JOIN LATERAL serving.web_facet(g.facet, NULL, false, unfiltered) AS f;
    INSERT INTO serving.facet_totals (kind, facet, value, count)
    SELECT 'all', f.facet, f.value, f.count
    FROM serving.web_facets_all(NULL, false, unfiltered) AS f;
END
$$;
