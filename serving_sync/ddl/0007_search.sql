-- serving schema v5: search, filters, facets and stats for the web app, and a web role
-- that reads only through these functions.
--
-- Every web query is one fixed SQL text run by EXECUTE ... USING: values are always
-- parameters, never spliced in, and EXECUTE plans each call with the actual values, so
-- the "$n IS NULL OR ..." branches of unused filters fold away and each call gets the
-- plan of exactly the filters it uses.

-- The same folding, without its cost for ASCII text: translate() over the ~700-character
-- table costs ~7 ms per 1,200 characters (measured), which made the generated tsvector
-- the bottleneck of every insert. ASCII-only text (byte length = character length)
-- folds to lower() alone, exactly as before; anything else takes the full path.
CREATE OR REPLACE FUNCTION serving.fold(value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN CASE WHEN octet_length(value) = length(value) THEN lower(value)
            ELSE lower(translate(normalize(value, NFC), {{FOLD_FROM}}, {{FOLD_TO}})) END;

-- Sort key of the default order: posted date, else the day we first saw it.
CREATE INDEX jobs_sort_at_idx ON serving.jobs ((coalesce(posted_at, first_seen_at)), id);
CREATE INDEX jobs_regions_idx ON serving.jobs USING gin (regions);
CREATE INDEX jobs_cities_idx ON serving.jobs USING gin (cities);
CREATE INDEX jobs_remote_idx ON serving.jobs (remote);
CREATE INDEX jobs_job_type_idx ON serving.jobs ((coalesce(job_type, 'unknown')));
CREATE INDEX jobs_employment_type_idx ON serving.jobs ((coalesce(employment_type, 'unknown')));
CREATE INDEX jobs_company_idx ON serving.jobs ((coalesce(company, 'unknown')));
CREATE INDEX jobs_salary_idx ON serving.jobs (salary_currency, (coalesce(salary_max, salary_min)))
    WHERE salary_min IS NOT NULL OR salary_max IS NOT NULL;
-- Facet counts without a text query read this narrow index (index-only scans) instead of
-- the wide rows with their descriptions.
CREATE INDEX jobs_facets_idx ON serving.jobs (source) INCLUDE (
    remote, job_type, employment_type, company, countries, regions, cities,
    posted_at, first_seen_at, salary_min, salary_max, salary_currency
);

-- The text query: websearch syntax over folded text; the last plain word also matches
-- as a prefix when the caller says so (it decides from the raw text: not quoted, not
-- excluded, at least 3 folded characters).
CREATE FUNCTION serving.web_tsquery(query text, last_is_prefix boolean) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    parsed tsquery := websearch_to_tsquery('simple', serving.fold(coalesce(query, '')));
    plain text := parsed::text;
BEGIN
    IF plain = '' THEN
        RETURN NULL;  -- nothing searchable (only punctuation, say): no text condition
    END IF;
    IF last_is_prefix AND right(plain, 1) = '''' THEN
        RETURN (plain || ':*')::tsquery;
    END IF;
    RETURN parsed;
END
$$;

-- The shared filter: OR within a group, AND across groups, 'unknown' selectable.
-- $1 tsquery, $2 country, $3 region, $4 city, $5 remote, $6 job_type, $7 employment_type,
-- $8 source, $9 company, $10 posted_within_days, $11 has_salary, $12 salary_min,
-- $13 salary_currency. A constant: callers append it to constant text only.
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
$w$;

-- One page of results, one row more than asked (the caller's "is there a next page").
-- newest: keyset on (sort_at, id). relevance: ts_rank over the newest `candidates`
-- matches only (ranking every match of a common word is what makes naive search slow),
-- keyset on (rank, id).
CREATE FUNCTION serving.web_search(
    q text, q_prefix boolean,
    p_country text[], p_region text[], p_city text[], p_remote text[], p_job_type text[],
    p_employment_type text[], p_source text[], p_company text[],
    p_posted_within_days integer, p_has_salary boolean, p_salary_min numeric, p_salary_currency text,
    sort text, after_at timestamptz, after_rank real, after_id bigint,
    page_rows integer, candidates integer DEFAULT 1000
) RETURNS TABLE (
    id bigint, title text, company text, location_text text, countries text[], cities text[],
    remote text, job_type text, employment_type text, posted_at timestamptz,
    posted_precision text, first_seen_at timestamptz, sort_at timestamptz,
    salary_min numeric, salary_max numeric, salary_currency text, salary_period text,
    source text, openings_12m integer, rank real
)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
DECLARE
    tsq tsquery := serving.web_tsquery(q, q_prefix);
    cols constant text := 'j.id, j.title, j.company, j.location_text, j.countries, j.cities,
        j.remote, j.job_type, j.employment_type, j.posted_at, j.posted_precision,
        j.first_seen_at, coalesce(j.posted_at, j.first_seen_at), j.salary_min, j.salary_max,
        j.salary_currency, j.salary_period, j.source, j.openings_12m';
BEGIN
    IF page_rows IS NULL OR page_rows < 1 OR page_rows > 51 THEN
        RAISE EXCEPTION 'page_rows must be 1..51' USING ERRCODE = '22023';
    END IF;
    IF sort = 'relevance' AND tsq IS NOT NULL THEN
        RETURN QUERY EXECUTE
            'WITH candidates AS (SELECT ' || cols || ', ts_rank(j.search_tsv, $1) AS rank
                 FROM serving.jobs j ' || serving.web_where() ||
            ' ORDER BY coalesce(j.posted_at, j.first_seen_at) DESC, j.id DESC LIMIT $17)
             SELECT * FROM candidates c
             WHERE $16 IS NULL OR (c.rank, c.id) < ($15, $16)
             ORDER BY c.rank DESC, c.id DESC LIMIT $18'
        USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
              p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
              p_salary_currency,
              after_at, after_rank, after_id, candidates, page_rows;
    ELSE
        RETURN QUERY EXECUTE
            'SELECT ' || cols || ', NULL::real FROM serving.jobs j ' || serving.web_where() ||
            ' AND ($16 IS NULL OR (coalesce(j.posted_at, j.first_seen_at), j.id) < ($14, $16))
             ORDER BY coalesce(j.posted_at, j.first_seen_at) DESC, j.id DESC LIMIT $18'
        USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
              p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
              p_salary_currency,
              after_at, after_rank, after_id, candidates, page_rows;
    END IF;
END
$$;

-- Counts of one group (a facet, or a stats distribution), disjunctive: every filter
-- applies except the group's own. 'unknown' is a bucket; the row with value NULL is the
-- denominator (postings in this group's filter context). A posting with several
-- countries counts once in each, so only single-valued groups sum to the denominator.
CREATE FUNCTION serving.web_facet(
    facet text, q text, q_prefix boolean,
    p_country text[], p_region text[], p_city text[], p_remote text[], p_job_type text[],
    p_employment_type text[], p_source text[], p_company text[],
    p_posted_within_days integer, p_has_salary boolean, p_salary_min numeric, p_salary_currency text,
    top_n integer DEFAULT NULL
) RETURNS TABLE (value text, count bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
DECLARE
    tsq tsquery := serving.web_tsquery(q, q_prefix);
    source_sql text;
BEGIN
    -- The group's own filter is lifted; the expressions come from this fixed list only.
    CASE facet
        WHEN 'country' THEN p_country := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(CASE WHEN j.countries = ''{}'' THEN ARRAY[''unknown''] ELSE j.countries END || ARRAY[NULL::text]) AS u(v)';
        WHEN 'region' THEN p_region := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(CASE WHEN j.regions = ''{}'' THEN ARRAY[''unknown''] ELSE j.regions END || ARRAY[NULL::text]) AS u(v)';
        WHEN 'city' THEN p_city := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL unnest(CASE WHEN j.cities = ''{}'' THEN ARRAY[''unknown''] ELSE j.cities END || ARRAY[NULL::text]) AS u(v)';
        WHEN 'remote' THEN p_remote := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL (SELECT j.remote) AS u(v)';
        WHEN 'job_type' THEN p_job_type := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL (SELECT coalesce(j.job_type, ''unknown'')) AS u(v)';
        WHEN 'employment_type' THEN p_employment_type := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL (SELECT coalesce(j.employment_type, ''unknown'')) AS u(v)';
        WHEN 'source' THEN p_source := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL (SELECT j.source) AS u(v)';
        WHEN 'company' THEN p_company := NULL;
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL (SELECT coalesce(j.company, ''unknown'')) AS u(v)';
        WHEN 'month' THEN
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL (SELECT coalesce(to_char(j.posted_at AT TIME ZONE ''UTC'', ''YYYY-MM''), ''unknown'')) AS u(v)';
        WHEN 'total' THEN
            source_sql := 'FROM serving.jobs j CROSS JOIN LATERAL (SELECT NULL::text) AS u(v)';
        ELSE
            RAISE EXCEPTION 'unknown facet %', facet USING ERRCODE = '22023';
    END CASE;
    IF facet IN ('country', 'region', 'city') THEN
        RETURN QUERY EXECUTE
            'SELECT u.v, count(*) ' || source_sql || serving.web_where() ||
            ' GROUP BY u.v ORDER BY u.v IS NULL DESC, u.v = ''unknown'' DESC, count(*) DESC, u.v
              LIMIT $14'
        USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
              p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
              p_salary_currency,
              CASE WHEN top_n IS NULL THEN NULL ELSE top_n + 2 END;
    ELSE
        -- ROLLUP adds the denominator row (value NULL) in the same pass.
        RETURN QUERY EXECUTE
            'SELECT u.v, count(*) ' || source_sql || serving.web_where() ||
            ' GROUP BY ROLLUP (u.v) HAVING grouping(u.v) = 1 OR u.v IS NOT NULL
              ORDER BY grouping(u.v) DESC, u.v = ''unknown'' DESC, count(*) DESC, u.v
              LIMIT $14'
        USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
              p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
              p_salary_currency,
              CASE WHEN top_n IS NULL THEN NULL ELSE top_n + 2 END;
    END IF;
END
$$;

-- Every group at once in the common context (all filters): one scan of the matches
-- instead of one per group. Groups whose own filter is set need web_facet instead.
-- The 'total' row is the denominator of every group here. Per group, the top_n
-- values by count are returned, and 'unknown' always.
CREATE FUNCTION serving.web_facets_all(
    q text, q_prefix boolean,
    p_country text[], p_region text[], p_city text[], p_remote text[], p_job_type text[],
    p_employment_type text[], p_source text[], p_company text[],
    p_posted_within_days integer, p_has_salary boolean, p_salary_min numeric, p_salary_currency text,
    top_n integer DEFAULT NULL
) RETURNS TABLE (facet text, value text, count bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
SET work_mem = '32MB'
AS $$
DECLARE
    tsq tsquery := serving.web_tsquery(q, q_prefix);
BEGIN
    -- One scan: each posting is one row per office (unnest of the three arrays side by
    -- side, WITH ORDINALITY), grouped by every group at once (GROUPING SETS). Array
    -- groups count every office row; the others count only the first (n = 1).
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
         WHERE $14 IS NULL OR c.place <= $14 OR c.v = ''unknown'' OR c.facet = ''total'''
    USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
          p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
          p_salary_currency, top_n;
END
$$;

-- One published posting, everything a job page shows.
CREATE FUNCTION serving.web_job(job_id bigint) RETURNS TABLE (
    id bigint, source text, external_id text, status text, title text, company text,
    department text, location_text text, countries text[], regions text[], cities text[],
    location_unresolved boolean, remote text, employment_type text, job_type text,
    posted_at timestamptz, posted_precision text, first_seen_at timestamptz,
    salary_min numeric, salary_max numeric, salary_currency text, salary_period text,
    url text, apply_url text, description text, openings_12m integer, duplicate_group bigint
)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
    SELECT j.id, j.source, j.external_id, j.status, j.title, j.company, j.department,
           j.location_text, j.countries, j.regions, j.cities, j.location_unresolved, j.remote,
           j.employment_type, j.job_type, j.posted_at, j.posted_precision, j.first_seen_at,
           j.salary_min, j.salary_max, j.salary_currency, j.salary_period, j.url, j.apply_url,
           j.description, j.openings_12m, j.duplicate_group
    FROM serving.jobs j WHERE j.id = job_id
$$;

-- A recent closure, so the job page can answer 410 "closed on ...".
CREATE FUNCTION serving.web_closed_job(job_id bigint) RETURNS TABLE (
    id bigint, source text, title text, company text, closed_at timestamptz, reason text
)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
    SELECT c.id, c.source, c.title, c.company, c.closed_at, c.reason
    FROM serving.closed_jobs c WHERE c.id = job_id
$$;

-- The last applied sync, for /healthz.
CREATE FUNCTION serving.web_last_sync() RETURNS TABLE (
    finished_at timestamptz, age_s double precision, source_rows integer
)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
    SELECT r.finished_at, extract(epoch FROM now() - r.finished_at)::double precision,
           r.source_rows
    FROM serving.sync_runs r
    WHERE r.status = 'applied' AND NOT r.dry_run AND r.finished_at IS NOT NULL
    ORDER BY r.finished_at DESC LIMIT 1
$$;

-- Access: the web role reads through the functions above, nothing else. Functions are
-- executable by PUBLIC by default, so that goes first.
REVOKE ALL ON FUNCTION serving.web_search, serving.web_facet, serving.web_facets_all, serving.web_job,
    serving.web_closed_job, serving.web_last_sync, serving.web_tsquery, serving.web_where,
    serving.search_jobs FROM PUBLIC;
GRANT EXECUTE ON FUNCTION serving.web_search, serving.web_facet, serving.web_facets_all, serving.web_job,
    serving.web_closed_job, serving.web_last_sync, serving.web_tsquery TO jobharbor_web;
REVOKE ALL ON ALL TABLES IN SCHEMA serving FROM jobharbor_web;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA serving FROM jobharbor_web;
REVOKE EXECUTE ON FUNCTION serving.search_jobs(text, integer) FROM jobharbor_web;
REVOKE CREATE ON SCHEMA serving FROM PUBLIC;

-- Row level security for Supabase-style deployments (where API roles would otherwise
-- see every table): on for every serving table, with a read policy for the web role only.
-- The owner (the sync) is not subject to it.
ALTER TABLE serving.jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.closed_jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.sync_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.schema_versions ENABLE ROW LEVEL SECURITY;
CREATE POLICY jobs_web_read ON serving.jobs FOR SELECT TO jobharbor_web USING (true);
CREATE POLICY closed_jobs_web_read ON serving.closed_jobs FOR SELECT TO jobharbor_web USING (true);
CREATE POLICY sync_runs_web_read ON serving.sync_runs FOR SELECT TO jobharbor_web USING (true);

-- Bounded sessions: a runaway query, a forgotten transaction or a connection leak in the
-- web app cannot take the serving database down.
ALTER ROLE jobharbor_web SET statement_timeout = '3s';
ALTER ROLE jobharbor_web SET idle_in_transaction_session_timeout = '10s';
ALTER ROLE jobharbor_web SET lock_timeout = '1s';
ALTER ROLE jobharbor_web CONNECTION LIMIT 20;
