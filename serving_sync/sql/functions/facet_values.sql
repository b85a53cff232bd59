-- The facet values one posting counts in, as (facet, value) pairs (see facet_bits for
-- the facets; 'company' here too, which the build keeps as runs of slots): what the
-- build turns into bitmaps and what web_facet_bits counts row by row for the postings
-- written since a build, so both read a posting the same way. The words are the build's
-- own (they need its list of words). A NULL value (a NULL array element) matches no
-- filter: callers drop it. Inlined into the caller's query (plain SQL, IMMUTABLE). It
-- takes the columns it reads, not the row: a whole row would be built per posting (and
-- PostgreSQL 15 fails to plan the inlined function over one).
CREATE OR REPLACE FUNCTION serving.facet_values(
    countries text[], regions text[], cities text[], employment_type text[], work_mode text,
    job_type text, source text, company text, salary_min numeric, salary_max numeric,
    posted_at timestamptz, sort_at timestamptz, seniority text, enriched_at timestamptz,
    has_text boolean, experience_min integer, experience_max integer, skills_required text[],
    skills_all text[]
) RETURNS TABLE (facet text, value text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT 'country', unnest(CASE WHEN facet_values.countries = '{}' THEN '{unknown}' ELSE facet_values.countries END)
    UNION ALL
    SELECT 'region', unnest(CASE WHEN facet_values.regions = '{}' THEN '{unknown}' ELSE facet_values.regions END)
    UNION ALL
    SELECT 'city', unnest(CASE WHEN facet_values.cities = '{}' THEN '{unknown}' ELSE facet_values.cities END)
    UNION ALL
    SELECT 'employment_type', unnest(CASE WHEN facet_values.employment_type = '{}' THEN '{unknown}'
                                          ELSE facet_values.employment_type END)
    UNION ALL
    VALUES ('work_mode', facet_values.work_mode),
           ('job_type', coalesce(facet_values.job_type, 'unknown')),
           ('source', facet_values.source),
           ('company', coalesce(facet_values.company, 'unknown')),
           ('salary', CASE WHEN facet_values.salary_min IS NOT NULL OR facet_values.salary_max IS NOT NULL
                           THEN 't' ELSE 'f' END),
           ('month', coalesce(to_char(facet_values.posted_at AT TIME ZONE 'UTC', 'YYYY-MM'), 'unknown')),
           -- sort_at's days and months (none for -infinity: to_char is NULL there),
           ('day', to_char(facet_values.sort_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')),
           ('sort_month', to_char(facet_values.sort_at AT TIME ZONE 'UTC', 'YYYY-MM')),
           -- and the postings of unknown age, which include_undated adds to a window.
           ('age', CASE WHEN facet_values.sort_at = '-infinity' THEN 'unknown' END),
           ('seniority', coalesce(facet_values.seniority, 'unknown')),
           ('enrichment', CASE WHEN facet_values.enriched_at IS NULL THEN 'unknown' ELSE 'extracted' END),
           ('text', CASE WHEN has_text THEN '' END),
           ('all', '')
    UNION ALL
    SELECT 'experience', unnest(serving.experience_bands(facet_values.experience_min, facet_values.experience_max))
    UNION ALL
    SELECT 'skill', unnest(CASE WHEN facet_values.enriched_at IS NULL THEN '{unknown}' ELSE facet_values.skills_required END)
    UNION ALL
    SELECT 'skill_all', unnest(CASE WHEN facet_values.enriched_at IS NULL THEN '{unknown}'
                                    ELSE ARRAY(SELECT DISTINCT unnest(facet_values.skills_all)) END)
$$;
