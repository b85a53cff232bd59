-- Counts of one group (a facet, or a stats distribution), disjunctive: every filter
-- applies except the group's own. 'unknown' is a bucket; the row with value NULL is the
-- denominator (postings in this group's filter context). Multi-valued groups (country,
-- region, city, skill, experience) count a posting once per value, so only single-valued
-- groups sum to the denominator. skill: 'unknown' is "not extracted"; an extracted
-- posting without skills adds to the denominator only. enrichment: 'extracted' or
-- 'unknown' (not extracted). Without any filter, the counts the sync keeps answer (see
-- refresh_facet_totals).
CREATE OR REPLACE FUNCTION serving.web_facet(
    facet text, q text, q_prefix boolean,
    p_country text[], p_region text[], p_city text[], p_remote text[], p_job_type text[],
    p_employment_type text[], p_source text[], p_company text[],
    p_posted_within_days integer, p_has_salary boolean, p_salary_min numeric, p_salary_currency text,
    p_skill text[], p_skill_match text, p_skill_scope text, p_experience int4range[],
    p_experience_unknown boolean, p_seniority text[], p_work_mode text[],
    top_n integer DEFAULT NULL
) RETURNS TABLE (value text, count bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
SET work_mem = '32MB'
SET enable_seqscan = off  -- as web_facets_all
AS $$
DECLARE
    tsq tsquery := serving.web_tsquery(q, q_prefix);
    source_sql text;
    single constant text := 'FROM serving.jobs j CROSS JOIN LATERAL (SELECT ';
BEGIN
    -- The group's own filter is lifted; the expressions come from this fixed list only.
    CASE facet
        WHEN 'country' THEN p_country := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(CASE WHEN j.countries = ''{}'' THEN ARRAY[''unknown''] ELSE j.countries END || ARRAY[NULL::text]) AS u(v)';
        WHEN 'region' THEN p_region := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(CASE WHEN j.regions = ''{}'' THEN ARRAY[''unknown''] ELSE j.regions END || ARRAY[NULL::text]) AS u(v)';
        WHEN 'city' THEN p_city := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(CASE WHEN j.cities = ''{}'' THEN ARRAY[''unknown''] ELSE j.cities END || ARRAY[NULL::text]) AS u(v)';
        WHEN 'skill' THEN p_skill := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(CASE WHEN j.enriched_at IS NULL THEN ARRAY[''unknown''] WHEN $16 = ''all'' THEN ARRAY(SELECT DISTINCT unnest(j.skills_all)) ELSE j.skills_required END || ARRAY[NULL::text]) AS u(v)';
        WHEN 'experience' THEN p_experience := NULL; p_experience_unknown := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(serving.experience_bands(j.experience_min, j.experience_max) || ARRAY[NULL::text]) AS u(v)';
        WHEN 'seniority' THEN p_seniority := NULL;
            source_sql := single || 'coalesce(j.seniority, ''unknown'')) AS u(v)';
        WHEN 'work_mode' THEN p_work_mode := NULL;
            source_sql := single || 'coalesce(j.work_mode, ''unknown'')) AS u(v)';
        WHEN 'enrichment' THEN
            source_sql := single || 'CASE WHEN j.enriched_at IS NULL THEN ''unknown'' ELSE ''extracted'' END) AS u(v)';
        WHEN 'remote' THEN p_remote := NULL;
            source_sql := single || 'j.remote) AS u(v)';
        WHEN 'job_type' THEN p_job_type := NULL;
            source_sql := single || 'coalesce(j.job_type, ''unknown'')) AS u(v)';
        WHEN 'employment_type' THEN p_employment_type := NULL;
            source_sql := single || 'coalesce(j.employment_type, ''unknown'')) AS u(v)';
        WHEN 'source' THEN p_source := NULL;
            source_sql := single || 'j.source) AS u(v)';
        WHEN 'company' THEN p_company := NULL;
            source_sql := single || 'coalesce(j.company, ''unknown'')) AS u(v)';
        WHEN 'month' THEN
            source_sql := single || 'coalesce(to_char(j.posted_at AT TIME ZONE ''UTC'', ''YYYY-MM''), ''unknown'')) AS u(v)';
        WHEN 'total' THEN
            source_sql := single || 'NULL::text) AS u(v)';
        ELSE
            RAISE EXCEPTION 'unknown facet %', facet USING ERRCODE = '22023';
    END CASE;
    IF tsq IS NOT NULL THEN  -- the lexeme filters join the text: one GIN scan (see filter_lexeme)
        tsq := serving.web_match(tsq, p_country, p_region, p_city, p_remote, p_job_type,
                                 p_employment_type, p_source, p_company, p_has_salary);
        p_country := NULL; p_region := NULL; p_city := NULL; p_remote := NULL;
        p_job_type := NULL; p_employment_type := NULL; p_source := NULL; p_company := NULL;
        p_has_salary := NULL;
    END IF;
    IF tsq IS NULL AND p_country IS NULL AND p_region IS NULL AND p_city IS NULL
       AND p_remote IS NULL AND p_job_type IS NULL AND p_employment_type IS NULL
       AND p_source IS NULL AND p_company IS NULL AND p_has_salary IS NULL
       AND p_posted_within_days IS NULL AND p_salary_min IS NULL AND p_skill IS NULL
       AND p_experience IS NULL AND p_experience_unknown IS NULL AND p_seniority IS NULL
       AND p_work_mode IS NULL
       AND (facet <> 'skill' OR coalesce(p_skill_scope, 'required') <> 'all')
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
                  AND web_facet.facet NOT IN ('skill', 'experience', 'seniority', 'work_mode',
                                              'enrichment')
            ) AS c
            ORDER BY c.value IS NULL DESC, c.value = 'unknown' DESC, c.count DESC, c.value
            LIMIT CASE WHEN top_n IS NULL THEN NULL ELSE top_n + 2 END;
        RETURN;
    END IF;
    IF facet IN ('country', 'region', 'city', 'skill', 'experience') THEN
        RETURN QUERY EXECUTE
            'SELECT u.v, count(*) ' || source_sql || serving.web_where() ||
            ' GROUP BY u.v ORDER BY u.v IS NULL DESC, u.v = ''unknown'' DESC, count(*) DESC, u.v
              LIMIT $21'
        USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
              p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
              p_salary_currency, p_skill, p_skill_match, p_skill_scope, p_experience,
              p_experience_unknown, p_seniority, p_work_mode,
              CASE WHEN top_n IS NULL THEN NULL ELSE top_n + 2 END;
    ELSE
        -- ROLLUP adds the denominator row (value NULL) in the same pass.
        RETURN QUERY EXECUTE
            'SELECT u.v, count(*) ' || source_sql || serving.web_where() ||
            ' GROUP BY ROLLUP (u.v) HAVING grouping(u.v) = 1 OR u.v IS NOT NULL
              ORDER BY grouping(u.v) DESC, u.v = ''unknown'' DESC, count(*) DESC, u.v
              LIMIT $21'
        USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
              p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
              p_salary_currency, p_skill, p_skill_match, p_skill_scope, p_experience,
              p_experience_unknown, p_seniority, p_work_mode,
              CASE WHEN top_n IS NULL THEN NULL ELSE top_n + 2 END;
    END IF;
END
$$;
