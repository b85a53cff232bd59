-- One published posting, everything a job page shows (with its enrichment).
CREATE OR REPLACE FUNCTION serving.web_job(job_id bigint) RETURNS TABLE (
    id bigint, source text, external_id text, status text, title text, company text,
    company_source text, legal_entity text, department text, location_text text, countries text[], regions text[], cities text[],
    location_unresolved boolean, work_mode text, work_mode_source text, employment_type text[],
    employment_type_raw text, job_type text, seniority text,
    posted_at timestamptz, posted_precision text, first_seen_at timestamptz, age_known boolean,
    salary_min numeric, salary_max numeric, salary_currency text, salary_period text,
    salary_year_min numeric, salary_year_max numeric, salary_year_basis text,
    url text, apply_url text, description text, description_layout text, openings_12m integer, duplicate_group bigint,
    skills_required text[], skills_preferred text[], enrichment jsonb, enriched_at timestamptz
)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
    SELECT j.id, j.source, j.external_id, j.status, j.title, j.company, j.company_source,
           j.legal_entity, j.department,
           j.location_text, j.countries, j.regions, j.cities, j.location_unresolved, j.work_mode,
           j.work_mode_source, j.employment_type, j.employment_type_raw, j.job_type, j.seniority,
           j.posted_at, j.posted_precision, j.first_seen_at, j.age_known,
           j.salary_min, j.salary_max, j.salary_currency, j.salary_period,
           j.salary_year_min, j.salary_year_max, j.salary_year_basis, j.url, j.apply_url,
           j.description, j.description_layout, j.openings_12m, j.duplicate_group, j.skills_required,
           j.skills_preferred, j.enrichment, j.enriched_at
    FROM serving.jobs j WHERE j.id = job_id
$$;
