-- The shared filter of the web queries: OR within a group, AND across groups, 'unknown'
-- selectable. Every web query is one fixed SQL text run by EXECUTE ... USING: values are
-- always parameters, never spliced in, and EXECUTE plans each call with the actual
-- values, so the "$n IS NULL OR ..." branches of unused filters fold away and each call
-- gets the plan of exactly the filters it uses.
-- $1 tsquery, $2 country, $3 region, $4 city, $5 remote, $6 job_type, $7 employment_type,
-- $8 source, $9 company, $10 posted_within_days, $11 has_salary, $12 salary_min,
-- $13 salary_currency, $14 skill keys, $15 skill_match (any | all), $16 skill_scope
-- (required | all), $17 experience ranges (int4range[]), $18 experience unknown
-- (true or NULL), $19 seniority, $20 work_mode. A constant: callers append it to constant
-- text only.
CREATE OR REPLACE FUNCTION serving.web_where() RETURNS text
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
