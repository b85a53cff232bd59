-- Every published job names its employer (docs/data-model.md, "Company").
--
-- company is the posting's own stated company, else its board's (sources.yaml's
-- `company:`, the listing envelope's name, or a name read from the board token);
-- company_source says which: posting | config | board | derived (NULL: not stated).
-- legal_entity is the employing entity a source names apart from the brand (Workday's
-- "631 Example Corp_United States"); the job page shows it where it differs.
--
-- The fingerprint covers the new columns, so the generated column is computed again,
-- as in 0015: drop it (and the index on it), replace the function, add it back. The
-- next sync is a full reconcile (the schema was migrated after the last applied sync,
-- serving_sync.mode) and writes both columns for every row; until then a company
-- serving holds came from the posting itself.

DROP INDEX serving.jobs_edited_outside_sync_idx;
ALTER TABLE serving.jobs DROP COLUMN fingerprint;
DROP FUNCTION serving.job_fingerprint(
    text, text, text, text, text, text, text, text[], text[], text[], boolean, text[], text,
    text, timestamptz, text, timestamptz, numeric, numeric, text, text, text, text, text,
    integer, bigint, integer, integer, text, text, text, text, text, text[], text[], jsonb,
    timestamptz
);

ALTER TABLE serving.jobs ADD COLUMN company_source text, ADD COLUMN legal_entity text;
UPDATE serving.jobs SET company_source = 'posting' WHERE company IS NOT NULL;

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
    company_source text, legal_entity text
) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN md5(jsonb_build_array(
    source, external_id, status, title, company, department, location_text,
    countries, regions, cities, location_unresolved, employment_type, employment_type_raw,
    job_type, extract(epoch FROM posted_at), posted_precision, extract(epoch FROM first_seen_at),
    salary_min, salary_max, salary_currency, salary_period, url, apply_url, description,
    openings_12m, duplicate_group, experience_min, experience_max, seniority, work_mode,
    work_mode_source, education, extracted_employment_type, skills_required, skills_preferred,
    enrichment, extract(epoch FROM enriched_at), company_source, legal_entity
)::text);

ALTER TABLE serving.jobs ADD COLUMN fingerprint text GENERATED ALWAYS AS (serving.job_fingerprint(
    source, external_id, status, title, company, department, location_text, countries,
    regions, cities, location_unresolved, employment_type, employment_type_raw, job_type,
    posted_at, posted_precision, first_seen_at, salary_min, salary_max, salary_currency,
    salary_period, url, apply_url, description, openings_12m, duplicate_group,
    experience_min, experience_max, seniority, work_mode, work_mode_source, education,
    extracted_employment_type, skills_required, skills_preferred, enrichment, enriched_at,
    company_source, legal_entity
)) STORED;

CREATE INDEX jobs_edited_outside_sync_idx ON serving.jobs (id)
    WHERE fingerprint IS DISTINCT FROM source_fingerprint;

-- Its result columns change: its file creates it again after the migrations.
DROP FUNCTION IF EXISTS serving.web_job(bigint);
