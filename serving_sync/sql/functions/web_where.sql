-- The shared filter of the web queries: OR within a group, AND across groups, 'unknown'
-- selectable ('unknown' employment type: none stated, '{}'). salary_min is yearly: the
-- yearly figures in the requested currency, or in euros (at the shipped reference rates)
-- for a posting paid in another; a salary that cannot be annualized matches no amount. The type's `remote` is read
-- by nothing: the web app reads that parameter as an alias of work_mode
-- (serving_sync.search), one column, so both give the same postings. Every web query is one fixed SQL text run by EXECUTE ... USING: values are
-- always parameters, never spliced in, and EXECUTE plans each call with the actual
-- values (a field of the filters parameter is a constant there too), so the
-- "... IS NULL OR ..." branches of unused filters fold away and each call gets the plan
-- of exactly the filters it uses.
-- The text query with an exclusion ('-engineer': '!' in the tsquery) is checked again
-- on each row (ts_match_vq: the operator's function, which the planner does not take as
-- an index condition): PostgreSQL's text index answers it without a recheck, and while a
-- VACUUM, an autovacuum's ANALYZE, gin_clean_pending_list or an insert past the list's
-- limit moves its pending entries into its main structure, a scan can read some of a
-- posting's words there and not yet others, so a posting with the excluded word is
-- taken to lack it ('-engineer' counted the postings whose only form of it was the stem
-- '~en:engin'). A query without an exclusion needs no check: a word missed can only
-- lose a match there, and the scan read the pending list before the main structure.
-- $1 the text query (tsquery), $2 the filters (serving.web_filter). A constant: callers
-- append it to constant text only.
CREATE OR REPLACE FUNCTION serving.web_where() RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN $w$
 WHERE ($1 IS NULL OR j.search_tsv @@ $1)
   AND ($1 IS NULL OR NOT serving.text_negates($1) OR ts_match_vq(j.search_tsv, $1))
   AND (($2).country IS NULL OR j.countries && ($2).country
        OR ('unknown' = ANY (($2).country) AND j.countries = '{}'))
   AND (($2).region IS NULL OR j.regions && ($2).region
        OR ('unknown' = ANY (($2).region) AND j.regions = '{}'))
   AND (($2).city IS NULL OR j.cities && ($2).city
        OR ('unknown' = ANY (($2).city) AND j.cities = '{}'))
   AND (($2).job_type IS NULL OR coalesce(j.job_type, 'unknown') = ANY (($2).job_type))
   AND (($2).employment_type IS NULL OR j.employment_type && ($2).employment_type
        OR ('unknown' = ANY (($2).employment_type) AND j.employment_type = '{}'))
   AND (($2).source IS NULL OR j.source = ANY (($2).source))
   AND (($2).company IS NULL OR coalesce(j.company, 'unknown') = ANY (($2).company))
   AND (($2).posted_within_days IS NULL
        OR j.sort_at >= now() - make_interval(days => ($2).posted_within_days)
        OR (($2).include_undated AND j.sort_at = '-infinity'))
   AND (($2).has_salary IS NULL
        OR (j.salary_min IS NOT NULL OR j.salary_max IS NOT NULL) = ($2).has_salary)
   AND (($2).salary_min IS NULL
        OR (j.salary_currency = ($2).salary_currency
            AND coalesce(j.salary_year_max, j.salary_year_min) >= ($2).salary_min)
        OR (j.salary_currency IS DISTINCT FROM ($2).salary_currency
            AND j.salary_year_top_eur >= ($2).salary_min_eur))
   AND (($2).skill IS NULL
        OR (($2).skill_scope = 'required' AND ($2).skill_match = 'any'
            AND j.skills_required && ($2).skill)
        OR (($2).skill_scope = 'required' AND ($2).skill_match = 'all'
            AND j.skills_required @> ($2).skill)
        OR (($2).skill_scope = 'all' AND ($2).skill_match = 'any' AND j.skills_all && ($2).skill)
        OR (($2).skill_scope = 'all' AND ($2).skill_match = 'all' AND j.skills_all @> ($2).skill))
   AND ((($2).experience IS NULL AND ($2).experience_unknown IS NULL)
        OR serving.experience_range(j.experience_min, j.experience_max) && ANY (($2).experience)
        OR (($2).experience_unknown AND j.experience_min IS NULL AND j.experience_max IS NULL))
   AND (($2).seniority IS NULL OR coalesce(j.seniority, 'unknown') = ANY (($2).seniority))
   AND (($2).work_mode IS NULL OR j.work_mode = ANY (($2).work_mode))
$w$;
