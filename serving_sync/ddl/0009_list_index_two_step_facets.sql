-- serving schema v9: list pages from a covering index, and faceted counts in two steps.
--
-- 1. At 1M rows a filter-only page with a rare combination (hybrid + new grad + salary,
--    say) walked the sort index and fetched a ~2 KB row for each of the thousands of
--    postings it rejected (400 ms, and 3 s cold). The sort index now carries every
--    filter column of the parse, so the newest-first walk filters index entries (an
--    index-only scan, with the visibility map current) and only the page's own rows are
--    read. It also serves the facet counts without a text query, so the v7 facet index
--    goes.
-- 2. A rare word must be estimated as rare, or the planner walks the newest-first index
--    checking every row (3 s at 1M rows): with the default statistics target the
--    tsvector's most common elements stop at ~0.5% of rows, and any word not among them
--    is guessed at that.
-- 3. web_facets_all counted every group in one scan, feeding each matching posting once
--    per office into ten hash tables, with to_char() per row for the month. Now the scan
--    groups the matching postings by each single-valued group and by their whole
--    (countries, regions, cities) arrays, with the month as date_trunc(); only the few
--    hundred distinct office arrays are then unnested and summed. Same contract and the
--    same numbers (the SQL tests check them against a Python oracle).
-- Signatures are those of v8, so grants stay.

DROP INDEX serving.jobs_sort_at_idx;
DROP INDEX serving.jobs_facets_idx;
ALTER TABLE serving.jobs ALTER COLUMN search_tsv SET STATISTICS 1000;
CREATE INDEX jobs_list_idx ON serving.jobs ((coalesce(posted_at, first_seen_at)), id) INCLUDE (
    countries, regions, cities, remote, job_type, employment_type, source, company,
    posted_at, first_seen_at, salary_min, salary_max, salary_currency
);

CREATE OR REPLACE FUNCTION serving.web_search(
    q text, q_prefix boolean,
    p_country text[], p_region text[], p_city text[], p_remote text[], p_job_type text[],
    p_employment_type text[], p_source text[], p_company text[],
    p_posted_within_days integer, p_has_salary boolean, p_salary_min numeric, p_salary_currency text,
    p_skill text[], p_skill_match text, p_skill_scope text, p_experience int4range[],
    p_experience_unknown boolean, p_seniority text[], p_work_mode text[],
    sort text, after_at timestamptz, after_rank real, after_id bigint,
    page_rows integer, candidates integer DEFAULT 1000
) RETURNS TABLE (
    id bigint, title text, company text, location_text text, countries text[], cities text[],
    remote text, job_type text, employment_type text, posted_at timestamptz,
    posted_precision text, first_seen_at timestamptz, sort_at timestamptz,
    salary_min numeric, salary_max numeric, salary_currency text, salary_period text,
    source text, openings_12m integer, experience_min integer, experience_max integer,
    seniority text, work_mode text, skills_required text[], skills_preferred text[],
    enriched boolean, rank real
)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
-- A common word's match bitmap (200k postings at 1M rows) must stay exact: in the
-- default 4 MB it went lossy and every posting on those pages was rechecked (2.1 s
-- instead of 0.4 s for a word plus three filters).
SET work_mem = '32MB'
AS $$
DECLARE
    tsq tsquery := serving.web_tsquery(q, q_prefix);
    cols constant text := 'j.id, j.title, j.company, j.location_text, j.countries, j.cities,
        j.remote, j.job_type, j.employment_type, j.posted_at, j.posted_precision,
        j.first_seen_at, coalesce(j.posted_at, j.first_seen_at), j.salary_min, j.salary_max,
        j.salary_currency, j.salary_period, j.source, j.openings_12m, j.experience_min,
        j.experience_max, j.seniority, j.work_mode, j.skills_required, j.skills_preferred,
        j.enriched_at IS NOT NULL';
BEGIN
    IF page_rows IS NULL OR page_rows < 1 OR page_rows > 51 THEN
        RAISE EXCEPTION 'page_rows must be 1..51' USING ERRCODE = '22023';
    END IF;
    IF sort = 'relevance' AND tsq IS NOT NULL THEN
        RETURN QUERY EXECUTE
            'WITH candidates AS (SELECT ' || cols || ', ts_rank(j.search_tsv, $1) AS rank
                 FROM serving.jobs j ' || serving.web_where() ||
            ' ORDER BY coalesce(j.posted_at, j.first_seen_at) DESC, j.id DESC LIMIT $24)
             SELECT * FROM candidates c
             WHERE $23 IS NULL OR (c.rank, c.id) < ($22, $23)
             ORDER BY c.rank DESC, c.id DESC LIMIT $25'
        USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
              p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
              p_salary_currency, p_skill, p_skill_match, p_skill_scope, p_experience,
              p_experience_unknown, p_seniority, p_work_mode,
              after_at, after_rank, after_id, candidates, page_rows;
    ELSE
        -- The page's ids first, from the list index alone (filters on its included
        -- columns), then their rows: a rare filter combination walks narrow index
        -- entries instead of fetching a wide row for every posting it rejects.
        RETURN QUERY EXECUTE
            'WITH page AS (
                 SELECT j.id, coalesce(j.posted_at, j.first_seen_at) AS sort_at
                 FROM serving.jobs j ' || serving.web_where() ||
            '    AND ($23 IS NULL OR (coalesce(j.posted_at, j.first_seen_at), j.id) < ($21, $23))
                 ORDER BY coalesce(j.posted_at, j.first_seen_at) DESC, j.id DESC LIMIT $25)
             SELECT ' || cols || ', NULL::real FROM page p JOIN serving.jobs j ON j.id = p.id
             ORDER BY p.sort_at DESC, p.id DESC'
        USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
              p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
              p_salary_currency, p_skill, p_skill_match, p_skill_scope, p_experience,
              p_experience_unknown, p_seniority, p_work_mode,
              after_at, after_rank, after_id, candidates, page_rows;
    END IF;
END
$$;


-- GROUPING(...) bits below, most significant first: countries, remote, job type,
-- employment type, source, company, month; 1 = not in this grouping set.
CREATE OR REPLACE FUNCTION serving.web_facets_all(
    q text, q_prefix boolean,
    p_country text[], p_region text[], p_city text[], p_remote text[], p_job_type text[],
    p_employment_type text[], p_source text[], p_company text[],
    p_posted_within_days integer, p_has_salary boolean, p_salary_min numeric, p_salary_currency text,
    p_skill text[], p_skill_match text, p_skill_scope text, p_experience int4range[],
    p_experience_unknown boolean, p_seniority text[], p_work_mode text[],
    top_n integer DEFAULT NULL
) RETURNS TABLE (facet text, value text, count bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
SET work_mem = '32MB'
AS $$
DECLARE
    tsq tsquery := serving.web_tsquery(q, q_prefix);
BEGIN
    RETURN QUERY EXECUTE
        'WITH parts AS MATERIALIZED (
             SELECT j.countries, j.regions, j.cities, j.remote,
                    coalesce(j.job_type, ''unknown'') AS jt,
                    coalesce(j.employment_type, ''unknown'') AS et, j.source,
                    coalesce(j.company, ''unknown'') AS co,
                    date_trunc(''month'', j.posted_at AT TIME ZONE ''UTC'') AS mo,
                    GROUPING(j.countries, j.remote, coalesce(j.job_type, ''unknown''),
                             coalesce(j.employment_type, ''unknown''), j.source,
                             coalesce(j.company, ''unknown''),
                             date_trunc(''month'', j.posted_at AT TIME ZONE ''UTC'')) AS g,
                    count(*) AS n
             FROM serving.jobs j ' || serving.web_where() || '
             GROUP BY GROUPING SETS ((j.countries, j.regions, j.cities), (j.remote),
                                     (coalesce(j.job_type, ''unknown'')),
                                     (coalesce(j.employment_type, ''unknown'')), (j.source),
                                     (coalesce(j.company, ''unknown'')),
                                     (date_trunc(''month'', j.posted_at AT TIME ZONE ''UTC'')))
         ), offices AS (
             SELECT u.c, u.r, u.ci, p.n
             FROM parts p CROSS JOIN LATERAL unnest(
                 CASE WHEN p.countries = ''{}'' THEN ''{unknown}''::text[] ELSE p.countries END,
                 CASE WHEN p.regions = ''{}'' THEN ''{unknown}''::text[] ELSE p.regions END,
                 CASE WHEN p.cities = ''{}'' THEN ''{unknown}''::text[] ELSE p.cities END
             ) AS u(c, r, ci)
             WHERE p.g = 63
         ), grouped AS (
             SELECT CASE WHEN GROUPING(o.c) = 0 THEN ''country''
                         WHEN GROUPING(o.r) = 0 THEN ''region''
                         ELSE ''city'' END AS facet,
                    coalesce(o.c, o.r, o.ci) AS v, sum(o.n)::bigint AS n
             FROM offices o
             GROUP BY GROUPING SETS ((o.c), (o.r), (o.ci))
             UNION ALL
             SELECT CASE p.g WHEN 95 THEN ''remote'' WHEN 111 THEN ''job_type''
                             WHEN 119 THEN ''employment_type'' WHEN 123 THEN ''source''
                             WHEN 125 THEN ''company'' ELSE ''month'' END,
                    CASE p.g WHEN 95 THEN p.remote WHEN 111 THEN p.jt WHEN 119 THEN p.et
                             WHEN 123 THEN p.source WHEN 125 THEN p.co
                             ELSE coalesce(to_char(p.mo, ''YYYY-MM''), ''unknown'') END,
                    p.n
             FROM parts p WHERE p.g <> 63
             UNION ALL
             SELECT ''total'', NULL, coalesce(sum(p.n), 0)::bigint FROM parts p WHERE p.g = 95
         ), placed AS (
             SELECT g.facet, g.v, g.n,
                    row_number() OVER (PARTITION BY g.facet ORDER BY g.n DESC, g.v) AS place
             FROM grouped g
             WHERE g.v IS NOT NULL OR g.facet = ''total''  -- padding of the shorter arrays
         )
         SELECT p.facet, p.v, p.n FROM placed p
         WHERE $21 IS NULL OR p.place <= $21 OR p.v = ''unknown'' OR p.facet = ''total'''
    USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
          p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
          p_salary_currency, p_skill, p_skill_match, p_skill_scope, p_experience,
          p_experience_unknown, p_seniority, p_work_mode, top_n;
END
$$;
