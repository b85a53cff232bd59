-- Dates that do not mislead (docs/data-model.md, "Dates").
--
-- age_known: the posting's first-seen time estimates its age (it appeared on a board
-- already scanned completely before; core.postings.age_known). An undated posting whose
-- age is unknown reads "listed since", sorts after every dated or estimated posting and
-- is outside every posted_within_days window unless the request says include_undated.
--
-- sort_at is the one date the list sorts and filters by: the posted date, else the
-- first-seen estimate, else -infinity (unknown age: last in "newest first", before no
-- window boundary). The list index is on it instead of the coalesce it replaces.
--
-- Salaries comparable (docs/data-model.md, "Salary"): salary_year_min/max are the stated
-- figures annualized in their stated currency (pipeline.normalize.salary: hour x 2,080,
-- day x 260, week x 52, month x 12; a figure with no period only when it is yearly-sized,
-- salary_year_basis 'inferred'), salary_year_top_eur the higher one in euros at the
-- shipped reference rates of one day (NULL: a currency the table lacks). salary_min
-- compares these: in the requested currency as stated, across currencies in euros.
--
-- The fingerprint covers age_known and the yearly figures, so the generated column is computed again, as in
-- 0016. The next sync is a full reconcile (the schema was migrated after the last
-- applied sync) and writes age_known for every row; until then every posting keeps the
-- first-seen estimate it was shown with before.

DROP INDEX serving.jobs_edited_outside_sync_idx;
DROP INDEX serving.jobs_list_idx;
ALTER TABLE serving.jobs DROP COLUMN fingerprint;
DROP FUNCTION serving.job_fingerprint(
    text, text, text, text, text, text, text, text[], text[], text[], boolean, text[], text,
    text, timestamptz, text, timestamptz, numeric, numeric, text, text, text, text, text,
    integer, bigint, integer, integer, text, text, text, text, text, text[], text[], jsonb,
    timestamptz, text, text
);

ALTER TABLE serving.jobs ADD COLUMN age_known boolean NOT NULL DEFAULT true,
    ADD COLUMN salary_year_min numeric, ADD COLUMN salary_year_max numeric,
    ADD COLUMN salary_year_basis text CHECK (salary_year_basis IN ('stated', 'inferred')),
    ADD COLUMN salary_year_top_eur numeric;
-- Until the next sync writes them: a yearly salary as stated is its own yearly figure.
UPDATE serving.jobs SET salary_year_min = salary_min, salary_year_max = salary_max,
    salary_year_basis = 'stated'
WHERE salary_period = 'year' AND (salary_min IS NOT NULL OR salary_max IS NOT NULL);
ALTER TABLE serving.jobs ADD COLUMN sort_at timestamptz GENERATED ALWAYS AS (
    CASE WHEN posted_at IS NOT NULL THEN posted_at
         WHEN age_known THEN first_seen_at
         ELSE '-infinity'::timestamptz END
) STORED;

-- As in 0013: part of serving.jobs, not a file under serving_sync/sql/.
CREATE FUNCTION serving.job_fingerprint(
    source text, external_id text, status text, title text, company text, department text,
    location_text text, countries text[], regions text[], cities text[],
    location_unresolved boolean, employment_type text[], employment_type_raw text,
    job_type text, posted_at timestamptz, posted_precision text, first_seen_at timestamptz,
    salary_min numeric, salary_max numeric, salary_currency text, salary_period text,
    url text, apply_url text, description text, openings_12m integer, duplicate_group bigint,
    experience_min integer, experience_max integer, seniority text, work_mode text,
    work_mode_source text, education text, extracted_employment_type text,
    skills_required text[], skills_preferred text[], enrichment jsonb, enriched_at timestamptz,
    company_source text, legal_entity text, age_known boolean, salary_year_min numeric,
    salary_year_max numeric, salary_year_basis text, salary_year_top_eur numeric
) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN md5(jsonb_build_array(
    source, external_id, status, title, company, department, location_text,
    countries, regions, cities, location_unresolved, employment_type, employment_type_raw,
    job_type, extract(epoch FROM posted_at), posted_precision, extract(epoch FROM first_seen_at),
    salary_min, salary_max, salary_currency, salary_period, url, apply_url, description,
    openings_12m, duplicate_group, experience_min, experience_max, seniority, work_mode,
    work_mode_source, education, extracted_employment_type, skills_required, skills_preferred,
    enrichment, extract(epoch FROM enriched_at), company_source, legal_entity, age_known,
    salary_year_min, salary_year_max, salary_year_basis, salary_year_top_eur
)::text);

ALTER TABLE serving.jobs ADD COLUMN fingerprint text GENERATED ALWAYS AS (serving.job_fingerprint(
    source, external_id, status, title, company, department, location_text, countries,
    regions, cities, location_unresolved, employment_type, employment_type_raw, job_type,
    posted_at, posted_precision, first_seen_at, salary_min, salary_max, salary_currency,
    salary_period, url, apply_url, description, openings_12m, duplicate_group,
    experience_min, experience_max, seniority, work_mode, work_mode_source, education,
    extracted_employment_type, skills_required, skills_preferred, enrichment, enriched_at,
    company_source, legal_entity, age_known, salary_year_min, salary_year_max,
    salary_year_basis, salary_year_top_eur
)) STORED;

CREATE INDEX jobs_edited_outside_sync_idx ON serving.jobs (id)
    WHERE fingerprint IS DISTINCT FROM source_fingerprint;
CREATE INDEX jobs_list_idx ON serving.jobs (sort_at, id) INCLUDE (
    countries, regions, cities, work_mode, job_type, employment_type, source, company,
    posted_at, first_seen_at, salary_min, salary_max, salary_currency, salary_year_min,
    salary_year_max, salary_year_top_eur
);

-- A request may take the postings of unknown age into a posted_within_days window;
-- salary_min_eur is salary_min in euros at the same rates (NULL: a currency they lack).
ALTER TYPE serving.web_filter ADD ATTRIBUTE include_undated boolean,
    ADD ATTRIBUTE salary_min_eur numeric;

-- Result columns or arguments change: their files create them again after the migrations.
DROP FUNCTION IF EXISTS serving.web_job(bigint);
DROP FUNCTION IF EXISTS serving.web_search(
    text, boolean, serving.web_filter, text, timestamptz, real, bigint, integer, integer);

-- The kept day counts were dated by the old sort key: the next sync writes them again.
DELETE FROM serving.facet_totals;
