-- Counts of one group (a facet, or a stats distribution), disjunctive: every filter
-- applies except the group's own. 'unknown' is a bucket; the row with value NULL is the
-- denominator (postings in this group's filter context). Multi-valued groups (country,
-- region, city, employment type, skill, experience) count a posting once per value, so only single-valued
-- groups sum to the denominator. skill: 'unknown' is "not extracted"; an extracted
-- posting without skills adds to the denominator only. enrichment: 'extracted' or
-- 'unknown' (not extracted). Without any filter, the counts the sync keeps answer (see
-- refresh_facet_totals).
CREATE OR REPLACE FUNCTION serving.web_facet(
    facet text, q text, q_prefix boolean, filters serving.web_filter, top_n integer DEFAULT NULL
) RETURNS TABLE (value text, count bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
SET work_mem = '32MB'
SET enable_seqscan = off  -- as web_facets_all
AS $$
DECLARE
    tsq tsquery := serving.web_tsquery(q, q_prefix);
    source_sql text;
    grouped text;
    joined record;
    single constant text := 'FROM serving.jobs j CROSS JOIN LATERAL (SELECT ';
BEGIN
    -- The group's own filter is lifted; the expressions come from this fixed list only.
    CASE facet
        WHEN 'country' THEN filters.country := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(CASE WHEN j.countries = ''{}'' THEN ARRAY[''unknown''] ELSE j.countries END || ARRAY[NULL::text]) AS u(v)';
        WHEN 'region' THEN filters.region := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(CASE WHEN j.regions = ''{}'' THEN ARRAY[''unknown''] ELSE j.regions END || ARRAY[NULL::text]) AS u(v)';
        WHEN 'city' THEN filters.city := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(CASE WHEN j.cities = ''{}'' THEN ARRAY[''unknown''] ELSE j.cities END || ARRAY[NULL::text]) AS u(v)';
        WHEN 'skill' THEN filters.skill := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(CASE WHEN j.enriched_at IS NULL THEN ARRAY[''unknown''] WHEN ($2).skill_scope = ''all'' THEN ARRAY(SELECT DISTINCT unnest(j.skills_all)) ELSE j.skills_required END || ARRAY[NULL::text]) AS u(v)';
        WHEN 'experience' THEN filters.experience := NULL; filters.experience_unknown := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(serving.experience_bands(j.experience_min, j.experience_max) || ARRAY[NULL::text]) AS u(v)';
        WHEN 'seniority' THEN filters.seniority := NULL;
            source_sql := single || 'coalesce(j.seniority, ''unknown'')) AS u(v)';
        WHEN 'enrichment' THEN
            source_sql := single || 'CASE WHEN j.enriched_at IS NULL THEN ''unknown'' ELSE ''extracted'' END) AS u(v)';
        WHEN 'work_mode' THEN filters.work_mode := NULL;
            source_sql := single || 'j.work_mode) AS u(v)';
        WHEN 'job_type' THEN filters.job_type := NULL;
            source_sql := single || 'coalesce(j.job_type, ''unknown'')) AS u(v)';
        WHEN 'employment_type' THEN filters.employment_type := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(CASE WHEN j.employment_type = ''{}'' THEN ARRAY[''unknown''] ELSE j.employment_type END || ARRAY[NULL::text]) AS u(v)';
        WHEN 'source' THEN filters.source := NULL;
            source_sql := single || 'j.source) AS u(v)';
        WHEN 'company' THEN filters.company := NULL;
            source_sql := single || 'coalesce(j.company, ''unknown'')) AS u(v)';
        WHEN 'month' THEN
            source_sql := single || 'coalesce(to_char(j.posted_at AT TIME ZONE ''UTC'', ''YYYY-MM''), ''unknown'')) AS u(v)';
        WHEN 'total' THEN
            source_sql := single || 'NULL::text) AS u(v)';
        ELSE
            RAISE EXCEPTION 'unknown facet %', facet USING ERRCODE = '22023';
    END CASE;
    joined := serving.web_join_lexemes(tsq, filters);  -- one GIN scan (see filter_lexeme)
    tsq := joined.tsq;
    filters := joined.filters;
    IF tsq IS NULL AND serving.web_unfiltered(filters)
       AND (facet <> 'skill' OR coalesce(filters.skill_scope, 'required') <> 'all')
       AND EXISTS (SELECT 1 FROM serving.facet_totals t WHERE t.kind = 'all') THEN
        RETURN QUERY
            SELECT c.value, c.count FROM (
                SELECT t.value, t.count FROM serving.facet_totals t
                WHERE t.kind = 'one' AND t.facet = web_facet.facet
                UNION ALL
                SELECT t.value, t.count FROM serving.facet_totals t
                WHERE t.kind = 'all' AND t.facet = web_facet.facet AND web_facet.facet <> 'total'
                UNION ALL  -- the denominator of a parse group, and the total itself
                SELECT NULL, t.count FROM serving.facet_totals t
                WHERE t.kind = 'all' AND t.facet = 'total'
                  AND web_facet.facet NOT IN ('skill', 'experience', 'seniority', 'enrichment')
            ) AS c
            ORDER BY c.value IS NULL DESC, c.value = 'unknown' DESC, c.count DESC, c.value
            LIMIT CASE WHEN top_n IS NULL THEN NULL ELSE top_n + 2 END;
        RETURN;
    END IF;
    IF facet IN ('country', 'region', 'city', 'employment_type', 'skill', 'experience') THEN
        grouped := ' GROUP BY u.v ORDER BY u.v IS NULL DESC, u.v = ''unknown'' DESC, count(*) DESC, u.v';
    ELSE  -- ROLLUP adds the denominator row (value NULL) in the same pass.
        grouped := ' GROUP BY ROLLUP (u.v) HAVING grouping(u.v) = 1 OR u.v IS NOT NULL
                     ORDER BY grouping(u.v) DESC, u.v = ''unknown'' DESC, count(*) DESC, u.v';
    END IF;
    RETURN QUERY EXECUTE
        'SELECT u.v, count(*) ' || source_sql || serving.web_where() || grouped || ' LIMIT $3'
    USING tsq, filters, CASE WHEN top_n IS NULL THEN NULL ELSE top_n + 2 END;
END
$$;
