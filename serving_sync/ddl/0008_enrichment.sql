-- serving schema v8: the enrichment (issue 12), published by the sync, and its filters,
-- facets and stats for the web app.
--
-- 1. Columns: experience bounds, seniority, work mode, education, the extracted
--    employment type (beside the parser's own `employment_type`), the canonical skill
--    keys (required, preferred) with GIN indexes, and `enrichment`, the compact evidence
--    of every value ({field: {value, evidence, start, end}}, skills as lists of those
--    plus `key`) for the job page and the API. `enriched_at` NULL means "not extracted"
--    (never "no requirements").
-- 2. The fingerprint covers them: an enrichment that changes is a content change.
-- 3. The web functions take the new filters; their signatures change, so they are
--    dropped and created again (the web role's grants with them).

ALTER TABLE serving.jobs
    ADD COLUMN experience_min            integer,
    ADD COLUMN experience_max            integer,
    ADD COLUMN seniority                 text,
    ADD COLUMN work_mode                 text,
    ADD COLUMN education                 text,
    ADD COLUMN extracted_employment_type text,
    ADD COLUMN skills_required           text[] NOT NULL DEFAULT '{}',
    ADD COLUMN skills_preferred          text[] NOT NULL DEFAULT '{}',
    ADD COLUMN enrichment                jsonb,
    ADD COLUMN enriched_at               timestamptz;
-- Required + preferred, for "skill_scope=all" with the same index support as required.
ALTER TABLE serving.jobs ADD COLUMN skills_all text[]
    GENERATED ALWAYS AS (skills_required || skills_preferred) STORED;

CREATE INDEX jobs_skills_required_idx ON serving.jobs USING gin (skills_required);
CREATE INDEX jobs_skills_preferred_idx ON serving.jobs USING gin (skills_preferred);
CREATE INDEX jobs_skills_all_idx ON serving.jobs USING gin (skills_all);
CREATE INDEX jobs_seniority_idx ON serving.jobs ((coalesce(seniority, 'unknown')));
CREATE INDEX jobs_work_mode_idx ON serving.jobs ((coalesce(work_mode, 'unknown')));
CREATE INDEX jobs_experience_idx ON serving.jobs (experience_min, experience_max);

-- The fingerprint of v5 plus the enrichment columns (same fixed text form).
CREATE FUNCTION serving.job_fingerprint(
    source text, external_id text, status text, title text, company text, department text,
    location_text text, countries text[], regions text[], cities text[],
    location_unresolved boolean, remote text, employment_type text, job_type text,
    posted_at timestamptz, posted_precision text, first_seen_at timestamptz,
    salary_min numeric, salary_max numeric, salary_currency text, salary_period text,
    url text, apply_url text, description text, openings_12m integer, duplicate_group bigint,
    experience_min integer, experience_max integer, seniority text, work_mode text,
    education text, extracted_employment_type text, skills_required text[],
    skills_preferred text[], enrichment jsonb, enriched_at timestamptz
) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN md5(jsonb_build_array(
    source, external_id, status, title, company, department, location_text,
    countries, regions, cities, location_unresolved, remote, employment_type, job_type,
    extract(epoch FROM posted_at), posted_precision, extract(epoch FROM first_seen_at),
    salary_min, salary_max, salary_currency, salary_period, url, apply_url, description,
    openings_12m, duplicate_group, experience_min, experience_max, seniority, work_mode,
    education, extracted_employment_type, skills_required, skills_preferred, enrichment,
    extract(epoch FROM enriched_at)
)::text);

ALTER TABLE serving.jobs DROP COLUMN fingerprint;  -- drops jobs_edited_outside_sync_idx
ALTER TABLE serving.jobs ADD COLUMN fingerprint text GENERATED ALWAYS AS (serving.job_fingerprint(
    source, external_id, status, title, company, department, location_text, countries, regions,
    cities, location_unresolved, remote, employment_type, job_type, posted_at, posted_precision,
    first_seen_at, salary_min, salary_max, salary_currency, salary_period, url, apply_url,
    description, openings_12m, duplicate_group, experience_min, experience_max, seniority,
    work_mode, education, extracted_employment_type, skills_required, skills_preferred,
    enrichment, enriched_at
)) STORED;
DROP FUNCTION serving.job_fingerprint(text, text, text, text, text, text, text, text[], text[],
    text[], boolean, text, text, text, timestamptz, text, timestamptz, numeric, numeric, text,
    text, text, text, text, integer, bigint);
-- Rows were written by the sync from the snapshot they came from: they still are.
UPDATE serving.jobs SET source_fingerprint = fingerprint;
CREATE INDEX jobs_edited_outside_sync_idx ON serving.jobs (id)
    WHERE fingerprint IS DISTINCT FROM source_fingerprint;

-- The experience bands of the facet and stats: a posting counts in every band its
-- range [min, max] overlaps (a missing max is open-ended: "5+ years" overlaps 10+).
CREATE FUNCTION serving.experience_range(lo integer, hi integer) RETURNS int4range
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN lo IS NULL AND hi IS NULL THEN NULL
            ELSE int4range(coalesce(lo, 0), coalesce(hi, 40), '[]') END;

CREATE FUNCTION serving.experience_bands(lo integer, hi integer) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN lo IS NULL AND hi IS NULL THEN ARRAY['unknown'] ELSE ARRAY(
    SELECT b.v FROM (VALUES (1, '0-1', int4range(0, 1, '[]')), (2, '2-4', int4range(2, 4, '[]')),
                            (3, '5-9', int4range(5, 9, '[]')), (4, '10+', int4range(10, 40, '[]')))
                    AS b(n, v, r)
    WHERE b.r && serving.experience_range(lo, hi) ORDER BY b.n) END;

DROP FUNCTION serving.web_search, serving.web_facet, serving.web_facets_all, serving.web_job;
DROP FUNCTION serving.web_where();

-- The shared filter: OR within a group, AND across groups, 'unknown' selectable.
-- $1 tsquery, $2 country, $3 region, $4 city, $5 remote, $6 job_type, $7 employment_type,
-- $8 source, $9 company, $10 posted_within_days, $11 has_salary, $12 salary_min,
-- $13 salary_currency, $14 skill keys, $15 skill_match (any | all), $16 skill_scope
-- (required | all), $17 experience ranges (int4range[]), $18 experience unknown
-- (true or NULL), $19 seniority, $20 work_mode. A constant: callers append it to constant
-- text only.
CREATE FUNCTION serving.web_where() RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN $w$
 WHERE ($1 IS NULL OR j.search_tsv @@ $1)
   AND ($2 IS NULL OR j.countries && $2 OR ('unknown' = ANY ($2) AND j.countries = '{}'))
   AND ($3 IS NULL OR j.regions && $3 OR ('unknown' = ANY ($3) AND j.regions = '{}'))
   AND ($4 IS NULL OR j.cities && $4 OR ('unknown' = ANY ($4) AND j.cities = '{}'))
   AND ($5 IS NULL OR j.remote = ANY ($5))
   AND ($6 IS NULL OR coalesce(j.job_type, 'unknown') = ANY ($6))
   AND ($7 IS NULL OR coalesce(j.employment_type, 'unknown') = ANY ($7))
   AND ($8 IS NULL OR j.source = ANY ($8))
   AND ($9 IS NULL OR coalesce(j.company, 'unknown') = ANY ($9))
   AND ($10 IS NULL OR coalesce(j.posted_at, j.first_seen_at) >= now() - make_interval(days => $10))
   AND ($11 IS NULL OR (j.salary_min IS NOT NULL OR j.salary_max IS NOT NULL) = $11)
   AND ($12 IS NULL OR (j.salary_currency = $13 AND coalesce(j.salary_max, j.salary_min) >= $12
                        AND (j.salary_min IS NOT NULL OR j.salary_max IS NOT NULL)))
   AND ($14 IS NULL
        OR ($16 = 'required' AND $15 = 'any' AND j.skills_required && $14)
        OR ($16 = 'required' AND $15 = 'all' AND j.skills_required @> $14)
        OR ($16 = 'all' AND $15 = 'any' AND j.skills_all && $14)
        OR ($16 = 'all' AND $15 = 'all' AND j.skills_all @> $14))
   AND (($17 IS NULL AND $18 IS NULL)
        OR serving.experience_range(j.experience_min, j.experience_max) && ANY ($17)
        OR ($18 AND j.experience_min IS NULL AND j.experience_max IS NULL))
   AND ($19 IS NULL OR coalesce(j.seniority, 'unknown') = ANY ($19))
   AND ($20 IS NULL OR coalesce(j.work_mode, 'unknown') = ANY ($20))
$w$;

-- One page of results, one row more than asked (the caller's "is there a next page").
-- newest: keyset on (sort_at, id). relevance: ts_rank over the newest `candidates`
-- matches only, keyset on (rank, id).
CREATE FUNCTION serving.web_search(
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
        RETURN QUERY EXECUTE
            'SELECT ' || cols || ', NULL::real FROM serving.jobs j ' || serving.web_where() ||
            ' AND ($23 IS NULL OR (coalesce(j.posted_at, j.first_seen_at), j.id) < ($21, $23))
             ORDER BY coalesce(j.posted_at, j.first_seen_at) DESC, j.id DESC LIMIT $25'
        USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
              p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
              p_salary_currency, p_skill, p_skill_match, p_skill_scope, p_experience,
              p_experience_unknown, p_seniority, p_work_mode,
              after_at, after_rank, after_id, candidates, page_rows;
    END IF;
END
$$;

-- Counts of one group, disjunctive: every filter applies except the group's own.
-- 'unknown' is a bucket; the row with value NULL is the denominator. Multi-valued
-- groups (country, region, city, skill, experience) count a posting once per value.
-- skill: 'unknown' is "not extracted"; an extracted posting without skills adds to the
-- denominator only. enrichment: 'extracted' or 'unknown' (not extracted).
CREATE FUNCTION serving.web_facet(
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

-- Every location/parse group at once in the common context (all filters), as in v7.
-- The enrichment groups are counted by web_facet.
CREATE FUNCTION serving.web_facets_all(
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
        'SELECT c.facet, c.v, c.n FROM (
             SELECT g.facet, g.v, g.n,
                    row_number() OVER (PARTITION BY g.facet ORDER BY g.n DESC, g.v) AS place
             FROM (
                 SELECT CASE WHEN GROUPING(b.c) = 0 THEN ''country''
                             WHEN GROUPING(b.r) = 0 THEN ''region''
                             WHEN GROUPING(b.ci) = 0 THEN ''city''
                             WHEN GROUPING(b.remote) = 0 THEN ''remote''
                             WHEN GROUPING(b.jt) = 0 THEN ''job_type''
                             WHEN GROUPING(b.et) = 0 THEN ''employment_type''
                             WHEN GROUPING(b.source) = 0 THEN ''source''
                             WHEN GROUPING(b.co) = 0 THEN ''company''
                             WHEN GROUPING(b.mo) = 0 THEN ''month''
                             ELSE ''total'' END AS facet,
                        coalesce(b.c, b.r, b.ci, b.remote, b.jt, b.et, b.source, b.co, b.mo) AS v,
                        CASE WHEN GROUPING(b.c) = 0 OR GROUPING(b.r) = 0 OR GROUPING(b.ci) = 0
                             THEN count(*) ELSE count(*) FILTER (WHERE b.n = 1) END AS n
                 FROM (
                     SELECT u.c, u.r, u.ci, u.n, j.remote,
                            coalesce(j.job_type, ''unknown'') AS jt,
                            coalesce(j.employment_type, ''unknown'') AS et, j.source,
                            coalesce(j.company, ''unknown'') AS co,
                            coalesce(to_char(j.posted_at AT TIME ZONE ''UTC'', ''YYYY-MM''), ''unknown'') AS mo
                     FROM serving.jobs j CROSS JOIN LATERAL unnest(
                         CASE WHEN j.countries = ''{}'' THEN ''{unknown}''::text[] ELSE j.countries END,
                         CASE WHEN j.regions = ''{}'' THEN ''{unknown}''::text[] ELSE j.regions END,
                         CASE WHEN j.cities = ''{}'' THEN ''{unknown}''::text[] ELSE j.cities END
                     ) WITH ORDINALITY AS u(c, r, ci, n) ' || serving.web_where() || '
                 ) AS b
                 GROUP BY GROUPING SETS ((b.c), (b.r), (b.ci), (b.remote), (b.jt), (b.et),
                                         (b.source), (b.co), (b.mo), ())
             ) AS g
             WHERE g.v IS NOT NULL OR g.facet = ''total''  -- padding of the shorter arrays
         ) AS c
         WHERE $21 IS NULL OR c.place <= $21 OR c.v = ''unknown'' OR c.facet = ''total'''
    USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
          p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
          p_salary_currency, p_skill, p_skill_match, p_skill_scope, p_experience,
          p_experience_unknown, p_seniority, p_work_mode, top_n;
END
$$;

-- One published posting, everything a job page shows (now with its enrichment).
CREATE FUNCTION serving.web_job(job_id bigint) RETURNS TABLE (
    id bigint, source text, external_id text, status text, title text, company text,
    department text, location_text text, countries text[], regions text[], cities text[],
    location_unresolved boolean, remote text, employment_type text, job_type text,
    posted_at timestamptz, posted_precision text, first_seen_at timestamptz,
    salary_min numeric, salary_max numeric, salary_currency text, salary_period text,
    url text, apply_url text, description text, openings_12m integer, duplicate_group bigint,
    skills_required text[], skills_preferred text[], enrichment jsonb, enriched_at timestamptz
)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
    SELECT j.id, j.source, j.external_id, j.status, j.title, j.company, j.department,
           j.location_text, j.countries, j.regions, j.cities, j.location_unresolved, j.remote,
           j.employment_type, j.job_type, j.posted_at, j.posted_precision, j.first_seen_at,
           j.salary_min, j.salary_max, j.salary_currency, j.salary_period, j.url, j.apply_url,
           j.description, j.openings_12m, j.duplicate_group, j.skills_required,
           j.skills_preferred, j.enrichment, j.enriched_at
    FROM serving.jobs j WHERE j.id = job_id
$$;

REVOKE ALL ON FUNCTION serving.web_search, serving.web_facet, serving.web_facets_all,
    serving.web_job, serving.web_where, serving.experience_range, serving.experience_bands
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION serving.web_search, serving.web_facet, serving.web_facets_all,
    serving.web_job TO jobharbor_web;
