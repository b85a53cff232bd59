-- The walk of web_search: the newest entries after the cursor (within posted_within_days,
-- if given), with the list index's columns only (the enrichment columns web_where() names
-- are NULL here: the walk runs without those filters), then web_where() with no text
-- query, then the text of each survivor.
-- Parameters as web_where()'s, $3/$5 the cursor, $7 the page, $8 the walk, $9 the text
-- query; $8 NULL walks the whole window. One array of ids, newest first.
CREATE OR REPLACE FUNCTION serving.list_walk_sql() RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 'SELECT array_agg(w.id ORDER BY w.sort_at DESC, w.id DESC) FROM (
    SELECT j.id, j.sort_at FROM (
        SELECT j.id, j.countries, j.regions, j.cities, j.work_mode, j.job_type,
               j.employment_type, j.source, j.company, j.posted_at, j.first_seen_at,
               j.salary_min, j.salary_max, j.salary_currency, j.salary_year_min,
               j.salary_year_max, j.salary_year_top_eur, j.sort_at,
               NULL::tsvector AS search_tsv, NULL::text[] AS skills_required,
               NULL::text[] AS skills_all, NULL::integer AS experience_min,
               NULL::integer AS experience_max, NULL::text AS seniority
        FROM serving.jobs j
        WHERE ($5 IS NULL OR (j.sort_at, j.id) < (coalesce($3, ''-infinity''), $5))
          AND (($2).posted_within_days IS NULL
               OR j.sort_at >= now() - make_interval(days => ($2).posted_within_days))
        ORDER BY j.sort_at DESC, j.id DESC
        LIMIT $8) j ' || serving.web_where() || '
      AND (SELECT t.search_tsv @@ $9 FROM serving.jobs t WHERE t.id = j.id)
    ORDER BY j.sort_at DESC, j.id DESC
    LIMIT $7) w';
