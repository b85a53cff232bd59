-- Every location and parse group at once in the common context (all filters): one pass
-- over the matches instead of one per group. Groups whose own filter is set, and the
-- enrichment's groups, are counted by web_facet. The 'total' row is the denominator of
-- every group here. Per group, the top_n values by count are returned, and 'unknown'
-- always. Without any filter, the counts the sync keeps answer (see refresh_facet_totals).
-- The pass groups the matching postings by each single-valued group and by their whole
-- (countries, regions, cities) and employment type arrays, with the month as date_trunc(); only the few
-- hundred distinct office arrays are then unnested and summed (feeding each matching
-- posting once per office into ten hash tables, with to_char() per row, was the slow
-- part). The SQL tests check the numbers against a Python oracle.
-- GROUPING(...) bits below, most significant first: countries, work mode, job type,
-- employment type, source, company, month; 1 = not in this grouping set.
CREATE OR REPLACE FUNCTION serving.web_facets_all(
    q text, q_prefix boolean, filters serving.web_filter, top_n integer DEFAULT NULL
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
    joined record;
BEGIN
    joined := serving.web_join_lexemes(tsq, filters);  -- one GIN scan (see filter_lexeme)
    tsq := joined.tsq;
    filters := joined.filters;
    IF tsq IS NULL AND serving.web_unfiltered(filters)
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
             SELECT j.countries, j.regions, j.cities, j.work_mode,
                    coalesce(j.job_type, ''unknown'') AS jt,
                    j.employment_type AS et, j.source,
                    coalesce(j.company, ''unknown'') AS co,
                    date_trunc(''month'', j.posted_at AT TIME ZONE ''UTC'') AS mo,
                    GROUPING(j.countries, j.work_mode, coalesce(j.job_type, ''unknown''),
                             j.employment_type, j.source,
                             coalesce(j.company, ''unknown''),
                             date_trunc(''month'', j.posted_at AT TIME ZONE ''UTC'')) AS g,
                    count(*) AS n
             FROM serving.jobs j ' || serving.web_where() || '
             GROUP BY GROUPING SETS ((j.countries, j.regions, j.cities), (j.work_mode),
                                     (coalesce(j.job_type, ''unknown'')),
                                     (j.employment_type), (j.source),
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
             SELECT CASE p.g WHEN 95 THEN ''work_mode'' WHEN 111 THEN ''job_type''
                             WHEN 123 THEN ''source'' WHEN 125 THEN ''company'' ELSE ''month'' END,
                    CASE p.g WHEN 95 THEN p.work_mode WHEN 111 THEN p.jt
                             WHEN 123 THEN p.source WHEN 125 THEN p.co
                             ELSE coalesce(to_char(p.mo, ''YYYY-MM''), ''unknown'') END,
                    p.n
             FROM parts p WHERE p.g NOT IN (63, 119)
             UNION ALL  -- a set of employment types: each of its values (none stated: unknown)
             SELECT ''employment_type'', u.v, sum(p.n)::bigint
             FROM parts p CROSS JOIN LATERAL unnest(
                 CASE WHEN p.et = ''{}'' THEN ''{unknown}''::text[] ELSE p.et END) AS u(v)
             WHERE p.g = 119
             GROUP BY u.v
             UNION ALL
             SELECT ''total'', NULL, coalesce(sum(p.n), 0)::bigint FROM parts p WHERE p.g = 95
         ), placed AS (
             SELECT g.facet, g.v, g.n,
                    row_number() OVER (PARTITION BY g.facet ORDER BY g.n DESC, g.v) AS place
             FROM grouped g
             WHERE g.v IS NOT NULL OR g.facet = ''total''  -- padding of the shorter arrays
         )
         SELECT p.facet, p.v, p.n FROM placed p
         WHERE $3 IS NULL OR p.place <= $3 OR p.v = ''unknown'' OR p.facet = ''total'''
    USING tsq, filters, top_n;
END
$$;
