-- The shape of a description (docs/serving-sync.md, "Description"): description_layout
-- holds one letter per line of description (h heading, u and o list items, p anything
-- else; serving_sync.layout), so a job page shows headings and lists built from the
-- letters, never a source's markup, and every offset into description stays exact.
--
-- The fingerprint covers the new column, so the generated column is computed again, as
-- in 0017. The next sync is a full reconcile (the schema was migrated after the last
-- applied sync) and writes the layout of every row; until then a page reads the shape
-- from the text alone (serving_sync.layout.usable_layout).

DROP INDEX serving.jobs_edited_outside_sync_idx;
ALTER TABLE serving.jobs DROP COLUMN fingerprint;
DROP FUNCTION serving.job_fingerprint(
    text, text, text, text, text, text, text, text[], text[], text[], boolean, text[], text,
    text, timestamptz, text, timestamptz, numeric, numeric, text, text, text, text, text,
    integer, bigint, integer, integer, text, text, text, text, text, text[], text[], jsonb,
    timestamptz, text, text, boolean, numeric, numeric, text, numeric
);

ALTER TABLE serving.jobs ADD COLUMN description_layout text
    CHECK (description_layout ~ '^[hpuo]+$');

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
    salary_year_max numeric, salary_year_basis text, salary_year_top_eur numeric,
    description_layout text
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
    salary_year_min, salary_year_max, salary_year_basis, salary_year_top_eur,
    description_layout
)::text);

ALTER TABLE serving.jobs ADD COLUMN fingerprint text GENERATED ALWAYS AS (serving.job_fingerprint(
    source, external_id, status, title, company, department, location_text, countries,
    regions, cities, location_unresolved, employment_type, employment_type_raw, job_type,
    posted_at, posted_precision, first_seen_at, salary_min, salary_max, salary_currency,
    salary_period, url, apply_url, description, openings_12m, duplicate_group,
    experience_min, experience_max, seniority, work_mode, work_mode_source, education,
    extracted_employment_type, skills_required, skills_preferred, enrichment, enriched_at,
    company_source, legal_entity, age_known, salary_year_min, salary_year_max,
    salary_year_basis, salary_year_top_eur, description_layout
)) STORED;

CREATE INDEX jobs_edited_outside_sync_idx ON serving.jobs (id)
    WHERE fingerprint IS DISTINCT FROM source_fingerprint;

-- Its result columns change: its file creates it again after the migrations.
DROP FUNCTION IF EXISTS serving.web_job(bigint);
