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
-- 4.-5. Below: filter lexemes in search_tsv, the kept unfiltered counts.
-- Signatures are those of v8, so grants stay.

DROP INDEX serving.jobs_sort_at_idx;
DROP INDEX serving.jobs_facets_idx;
ALTER TABLE serving.jobs ALTER COLUMN search_tsv SET STATISTICS 1000;
CREATE INDEX jobs_list_idx ON serving.jobs ((coalesce(posted_at, first_seen_at)), id) INCLUDE (
    countries, regions, cities, remote, job_type, employment_type, source, company,
    posted_at, first_seen_at, salary_min, salary_max, salary_currency
);

-- 4. The filters of the parse (country, region, city, remote, job type, employment type,
--    source, company, has salary) are also lexemes of search_tsv, so one GIN scan answers
--    a text query and its filters together: GIN's fast scan skips through the common
--    word's posting list by the rarer filters' lists. A word plus three filters was a
--    BitmapAnd over a 370k-entry bitmap of the word (80 ms just to build) or a walk of
--    the newest-first index rechecking a detoasted tsvector per row (258 ms p95).
--    A filter lexeme is '¦', a group code, '=' and the value verbatim ('¦c=US'); the
--    text parser never puts '¦' in a lexeme (it is not a word character, nor one of a
--    URL, host, e-mail or path), so no word of a posting can match a filter. A value
--    over 200 bytes is written as its md5 after '#' instead of '=' (lexemes are capped
--    at 2 KB; '#' keeps the two forms apart). Values are matched exactly, as the column
--    conditions they stand for did: 'unknown' stands for an empty office list, a missing
--    job type, employment type or company. Only with a text query: then the tsvector is
--    read for every candidate row anyway, and the column conditions are dropped (their
--    parameters set NULL). Without one, the filters stay column conditions (v8's
--    web_where): a scan checks them on the row or on the list index's entries, where a
--    filter lexeme would detoast a tsvector per row (a broad filter's scan took seconds).
CREATE FUNCTION serving.filter_lexeme(grp text, value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN '¦' || grp || CASE WHEN octet_length(value) <= 200 THEN '=' || value
                          ELSE '#' || md5(value) END;

-- PL/pgSQL, not a SQL function over a subquery: this runs once per written row, and the
-- subquery form cost ~0.5 ms a row (a full load of 1M rows took minutes more); this ~20 us.
CREATE FUNCTION serving.filter_lexemes(
    countries text[], regions text[], cities text[], remote text, job_type text,
    employment_type text, source text, company text, salary_min numeric, salary_max numeric
) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
    found text[] := ARRAY[
        serving.filter_lexeme('rm', remote),
        serving.filter_lexeme('jt', coalesce(job_type, 'unknown')),
        serving.filter_lexeme('et', coalesce(employment_type, 'unknown')),
        serving.filter_lexeme('s', source),
        serving.filter_lexeme('co', coalesce(company, 'unknown')),
        serving.filter_lexeme('h', CASE WHEN salary_min IS NOT NULL OR salary_max IS NOT NULL
                                        THEN 't' ELSE 'f' END)];
    v text;
BEGIN
    -- A NULL list or element (as a NULL value above) matches no filter: no lexeme.
    FOREACH v IN ARRAY CASE WHEN countries = '{}' THEN '{unknown}' ELSE coalesce(countries, '{}') END LOOP
        found := found || serving.filter_lexeme('c', v);
    END LOOP;
    FOREACH v IN ARRAY CASE WHEN regions = '{}' THEN '{unknown}' ELSE coalesce(regions, '{}') END LOOP
        found := found || serving.filter_lexeme('rg', v);
    END LOOP;
    FOREACH v IN ARRAY CASE WHEN cities = '{}' THEN '{unknown}' ELSE coalesce(cities, '{}') END LOOP
        found := found || serving.filter_lexeme('ci', v);
    END LOOP;
    RETURN array_to_tsvector(array_remove(found, NULL));
END
$$;

-- The lexeme as a tsquery operand: quoted, with quotes and backslashes escaped.
CREATE FUNCTION serving.lexeme_query(lexeme text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN ('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''')::tsquery;

-- One group's filter: any of its values. An empty list matches nothing, as "= ANY ('{}')"
-- did ('¦' alone is no posting's lexeme).
CREATE FUNCTION serving.filter_query(grp text, vals text[]) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN coalesce(
    (SELECT string_agg(serving.lexeme_query(serving.filter_lexeme(grp, v))::text, ' | ')
     FROM unnest(vals) AS v)::tsquery,
    serving.lexeme_query('¦'));

CREATE FUNCTION serving.tsquery_and(a tsquery, b tsquery) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a ELSE a && b END;

-- The text query and every lexeme filter, AND-ed (NULL: no condition at all).
CREATE FUNCTION serving.web_match(
    tsq tsquery, p_country text[], p_region text[], p_city text[], p_remote text[],
    p_job_type text[], p_employment_type text[], p_source text[], p_company text[],
    p_has_salary boolean
) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN serving.tsquery_and(tsq, serving.tsquery_and(serving.filter_query('c', p_country),
    serving.tsquery_and(serving.filter_query('rg', p_region),
    serving.tsquery_and(serving.filter_query('ci', p_city),
    serving.tsquery_and(serving.filter_query('rm', p_remote),
    serving.tsquery_and(serving.filter_query('jt', p_job_type),
    serving.tsquery_and(serving.filter_query('et', p_employment_type),
    serving.tsquery_and(serving.filter_query('s', p_source),
    serving.tsquery_and(serving.filter_query('co', p_company),
    serving.lexeme_query(serving.filter_lexeme(
        'h', CASE p_has_salary WHEN true THEN 't' WHEN false THEN 'f' END)))))))))));

-- The sync writes search_tsv_of(...) || filter_lexemes(...) itself; anyone else writing
-- serving.jobs (a hand edit, a test) gets both from the trigger, and a change of a
-- filter column alone swaps that row's filter lexemes.
CREATE OR REPLACE FUNCTION serving.jobs_search_tsv() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (TG_OP = 'INSERT' AND NEW.search_tsv IS NULL)
       OR (TG_OP = 'UPDATE' AND NEW.search_tsv IS NOT DISTINCT FROM OLD.search_tsv
           AND (NEW.title, NEW.company, NEW.location_text, NEW.description)
               IS DISTINCT FROM (OLD.title, OLD.company, OLD.location_text, OLD.description)) THEN
        NEW.search_tsv := serving.search_tsv_of(
            serving.fold(NEW.title), serving.fold(NEW.company), serving.fold(NEW.location_text),
            serving.fold(left(NEW.description, 20000)))
            || serving.filter_lexemes(NEW.countries, NEW.regions, NEW.cities, NEW.remote,
                   NEW.job_type, NEW.employment_type, NEW.source, NEW.company, NEW.salary_min,
                   NEW.salary_max);
    ELSIF TG_OP = 'UPDATE' AND NEW.search_tsv IS NOT DISTINCT FROM OLD.search_tsv
          AND (NEW.countries, NEW.regions, NEW.cities, NEW.remote, NEW.job_type,
               NEW.employment_type, NEW.source, NEW.salary_min, NEW.salary_max)
              IS DISTINCT FROM (OLD.countries, OLD.regions, OLD.cities, OLD.remote, OLD.job_type,
               OLD.employment_type, OLD.source, OLD.salary_min, OLD.salary_max) THEN
        NEW.search_tsv := ts_delete(NEW.search_tsv, tsvector_to_array(serving.filter_lexemes(
                OLD.countries, OLD.regions, OLD.cities, OLD.remote, OLD.job_type,
                OLD.employment_type, OLD.source, OLD.company, OLD.salary_min, OLD.salary_max)))
            || serving.filter_lexemes(NEW.countries, NEW.regions, NEW.cities, NEW.remote,
                   NEW.job_type, NEW.employment_type, NEW.source, NEW.company, NEW.salary_min,
                   NEW.salary_max);
    END IF;
    RETURN NEW;
END
$$;

-- Rows already published get their filter lexemes (the trigger leaves this alone: the
-- new search_tsv is given). The text index is built again afterwards rather than
-- updated row by row (minutes instead of most of an hour at 1M rows).
DROP INDEX serving.jobs_search_tsv_idx;
UPDATE serving.jobs SET search_tsv = search_tsv || serving.filter_lexemes(
    countries, regions, cities, remote, job_type, employment_type, source, company,
    salary_min, salary_max);
CREATE INDEX jobs_search_tsv_idx ON serving.jobs USING gin (search_tsv);

REVOKE ALL ON FUNCTION serving.filter_lexeme, serving.filter_lexemes, serving.lexeme_query,
    serving.filter_query, serving.tsquery_and, serving.web_match FROM PUBLIC;

-- 5. The counts of the unfiltered context (the landing page; and, disjunctively, the own
--    group of any request with a single filter) are a full pass over every published
--    posting: seconds at 1M rows, past any request budget. They only change when the
--    sync writes, so the sync computes them once, inside its transaction, after it
--    wrote (serving_sync.facet_totals); the functions read them while the table holds
--    them, and count live otherwise (a fresh migration, an empty table: the same
--    numbers). 'all' rows: web_facets_all's answer without filters and without top_n;
--    'one' rows: web_facet's for the enrichment groups (the parse groups' own counts are
--    the 'all' rows plus the total as denominator).
CREATE TABLE serving.facet_totals (
    kind  text NOT NULL CHECK (kind IN ('all', 'one')),
    facet text NOT NULL,
    value text,
    count bigint NOT NULL
);
ALTER TABLE serving.facet_totals ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON serving.facet_totals FROM PUBLIC;

CREATE FUNCTION serving.refresh_facet_totals() RETURNS void
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
BEGIN
    DELETE FROM serving.facet_totals;  -- empty: the functions below count live
    -- The 'one' rows first: once 'all' rows exist, web_facet reads the table.
    INSERT INTO serving.facet_totals (kind, facet, value, count)
    SELECT 'one', g.facet, f.value, f.count
    FROM unnest(ARRAY['skill', 'experience', 'seniority', 'work_mode', 'enrichment']) AS g(facet)
    CROSS JOIN LATERAL serving.web_facet(g.facet, NULL, false, NULL, NULL, NULL, NULL, NULL,
                                         NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'any',
                                         'required', NULL, NULL, NULL, NULL, NULL) AS f;
    INSERT INTO serving.facet_totals (kind, facet, value, count)
    SELECT 'all', f.facet, f.value, f.count
    FROM serving.web_facets_all(NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL, NULL, NULL, NULL, 'any', 'required', NULL, NULL,
                                NULL, NULL, NULL) AS f;
END
$$;
REVOKE ALL ON FUNCTION serving.refresh_facet_totals() FROM PUBLIC;

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
    text_q tsquery := serving.web_tsquery(q, q_prefix);
    tsq tsquery := text_q;
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
    IF tsq IS NOT NULL THEN  -- the lexeme filters join the text: one GIN scan (see 4.)
        tsq := serving.web_match(tsq, p_country, p_region, p_city, p_remote, p_job_type,
                                 p_employment_type, p_source, p_company, p_has_salary);
        p_country := NULL; p_region := NULL; p_city := NULL; p_remote := NULL;
        p_job_type := NULL; p_employment_type := NULL; p_source := NULL; p_company := NULL;
        p_has_salary := NULL;
    END IF;
    IF sort = 'relevance' AND text_q IS NOT NULL THEN
        RETURN QUERY EXECUTE
            'WITH candidates AS (SELECT ' || cols || ', ts_rank(j.search_tsv, $26) AS rank
                 FROM serving.jobs j ' || serving.web_where() ||
            ' ORDER BY coalesce(j.posted_at, j.first_seen_at) DESC, j.id DESC LIMIT $24)
             SELECT * FROM candidates c
             WHERE $23 IS NULL OR (c.rank, c.id) < ($22, $23)
             ORDER BY c.rank DESC, c.id DESC LIMIT $25'
        USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
              p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
              p_salary_currency, p_skill, p_skill_match, p_skill_scope, p_experience,
              p_experience_unknown, p_seniority, p_work_mode,
              after_at, after_rank, after_id, candidates, page_rows, text_q;
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
-- A counting scan is a bitmap scan from the text index or a walk of the list index,
-- never a sequential scan: the planner prices "search_tsv @@ q" on a row at one
-- operator, but it detoasts a tsvector per row (a prefix query's seq scan over 1M rows
-- took 2.6 s where the bitmap scan took 0.7 s), and without a text query the list index
-- holds every filter column in a fifth of the heap's width.
SET enable_seqscan = off
AS $$
DECLARE
    tsq tsquery := serving.web_tsquery(q, q_prefix);
BEGIN
    IF tsq IS NOT NULL THEN  -- the lexeme filters join the text: one GIN scan (see 4.)
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
       AND EXISTS (SELECT 1 FROM serving.facet_totals t WHERE t.kind = 'all') THEN
        RETURN QUERY
            SELECT c.facet, c.value, c.count FROM (
                SELECT t.facet, t.value, t.count,
                       row_number() OVER (PARTITION BY t.facet ORDER BY t.count DESC, t.value)
                           AS place
                FROM serving.facet_totals t WHERE t.kind = 'all') AS c
            WHERE top_n IS NULL OR c.place <= top_n OR c.value = 'unknown' OR c.facet = 'total';
        RETURN;
    END IF;
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
    IF tsq IS NOT NULL THEN  -- the lexeme filters join the text: one GIN scan (see 4.)
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

