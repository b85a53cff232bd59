-- One vocabulary per field (docs/data-model.md, "Employment type" and "Work mode").
--
-- employment_type becomes the set of canonical values (full_time, part_time, contract,
-- temporary, internship, volunteer, per_diem, other; '{}' is "not stated"), mapped at
-- publish time by pipeline.normalize.employment, with the stated string kept beside it
-- in employment_type_raw. The parser's remote tri-state (`remote`) and the enrichment's
-- work_mode become one published work_mode (onsite | hybrid | remote | unknown) with
-- work_mode_source (field | location | description), chosen by
-- pipeline.normalize.work_mode: `remote` goes, and the `remote` filter reads work_mode.
--
-- The fingerprint covers the new columns, so the generated column is computed again:
-- drop it (and its index), replace the function, add it back. The mapping is Python's:
-- rows keep their raw value here and the next sync, a full reconcile because the schema
-- was migrated after the last applied sync (serving_sync.mode), maps every one of them.
-- Until then the filter lexemes of the two fields are rewritten here, inline, as
-- serving.filter_lexeme writes them ('¦et=', '¦wm='), so filters and text queries agree
-- with the columns.

DROP INDEX serving.jobs_edited_outside_sync_idx;
DROP INDEX serving.jobs_list_idx;
DROP INDEX serving.jobs_remote_idx;
DROP INDEX serving.jobs_employment_type_idx;
DROP INDEX serving.jobs_work_mode_idx;
ALTER TABLE serving.jobs DROP COLUMN fingerprint;
DROP FUNCTION serving.job_fingerprint(
    text, text, text, text, text, text, text, text[], text[], text[], boolean, text, text,
    text, timestamptz, text, timestamptz, numeric, numeric, text, text, text, text, text,
    integer, bigint, integer, integer, text, text, text, text, text[], text[], jsonb,
    timestamptz
);

ALTER TABLE serving.jobs ADD COLUMN employment_type_raw text, ADD COLUMN work_mode_source text;
-- The written precedence with what serving holds: the parser's field over the
-- description (the location text's reading is not here; the full sync adds it).
UPDATE serving.jobs SET
    employment_type_raw = employment_type,
    work_mode = CASE remote WHEN 'yes' THEN 'remote' WHEN 'hybrid' THEN 'hybrid'
                            ELSE coalesce(work_mode, 'unknown') END,
    work_mode_source = CASE WHEN remote IN ('yes', 'hybrid') THEN 'field'
                            WHEN work_mode IN ('remote', 'hybrid', 'onsite') THEN 'description' END;
UPDATE serving.jobs SET search_tsv = ts_delete(search_tsv, ARRAY(
        SELECT l.lexeme FROM unnest(search_tsv) AS l
        WHERE l.lexeme LIKE '¦rm=%' OR l.lexeme LIKE '¦rm#%'
           OR l.lexeme LIKE '¦et=%' OR l.lexeme LIKE '¦et#%'))
    || array_to_tsvector(ARRAY['¦et=unknown', '¦wm=' || work_mode])
WHERE search_tsv IS NOT NULL;
-- No statement below fires the row trigger (serving.jobs_search_tsv, whose current
-- file names the new columns and is applied after the migrations).
ALTER TABLE serving.jobs
    ALTER COLUMN employment_type TYPE text[] USING '{}'::text[],
    ALTER COLUMN employment_type SET DEFAULT '{}',
    ALTER COLUMN employment_type SET NOT NULL,
    ALTER COLUMN work_mode SET DEFAULT 'unknown',
    ALTER COLUMN work_mode SET NOT NULL,
    DROP COLUMN remote;

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
    skills_required text[], skills_preferred text[], enrichment jsonb, enriched_at timestamptz
) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN md5(jsonb_build_array(
    source, external_id, status, title, company, department, location_text,
    countries, regions, cities, location_unresolved, employment_type, employment_type_raw,
    job_type, extract(epoch FROM posted_at), posted_precision, extract(epoch FROM first_seen_at),
    salary_min, salary_max, salary_currency, salary_period, url, apply_url, description,
    openings_12m, duplicate_group, experience_min, experience_max, seniority, work_mode,
    work_mode_source, education, extracted_employment_type, skills_required, skills_preferred,
    enrichment, extract(epoch FROM enriched_at)
)::text);

ALTER TABLE serving.jobs ADD COLUMN fingerprint text GENERATED ALWAYS AS (serving.job_fingerprint(
    source, external_id, status, title, company, department, location_text, countries,
    regions, cities, location_unresolved, employment_type, employment_type_raw, job_type,
    posted_at, posted_precision, first_seen_at, salary_min, salary_max, salary_currency,
    salary_period, url, apply_url, description, openings_12m, duplicate_group,
    experience_min, experience_max, seniority, work_mode, work_mode_source, education,
    extracted_employment_type, skills_required, skills_preferred, enrichment, enriched_at
)) STORED;

CREATE INDEX jobs_edited_outside_sync_idx ON serving.jobs (id)
    WHERE fingerprint IS DISTINCT FROM source_fingerprint;
CREATE INDEX jobs_employment_type_idx ON serving.jobs USING gin (employment_type);
CREATE INDEX jobs_work_mode_idx ON serving.jobs (work_mode);
-- As in 0013, with work_mode (now a filter of the parse's kind) where remote was.
CREATE INDEX jobs_list_idx ON serving.jobs ((coalesce(posted_at, first_seen_at)), id) INCLUDE (
    countries, regions, cities, work_mode, job_type, employment_type, source, company,
    posted_at, first_seen_at, salary_min, salary_max, salary_currency
);

-- The kept counts name the old groups ('remote'; work_mode as an enrichment group):
-- empty, the web functions count live until the next sync writes them again.
DELETE FROM serving.facet_totals;

-- Functions whose arguments or result columns change: their files create them again
-- after the migrations (CREATE OR REPLACE cannot change either).
DROP FUNCTION IF EXISTS serving.filter_lexemes(
    text[], text[], text[], text, text, text, text, text, numeric, numeric);
DROP FUNCTION IF EXISTS serving.web_job(bigint);
DROP FUNCTION IF EXISTS serving.web_search(
    text, boolean, serving.web_filter, text, timestamptz, real, bigint, integer, integer);
