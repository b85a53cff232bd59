-- The language a posting is written in (serving_sync.language, detected once by the
-- sync): it picks the stemmer whose stems the sync adds to search_tsv
-- (serving.stem_lexemes: English, German and French; any other language, or none
-- detected, is searched folded only).
--
-- The fingerprint covers the new column, so the generated column is computed again, as
-- in 0020. The next sync is a full reconcile (the schema was migrated after the last
-- applied sync): a row whose language is detected now differs from the NULL it holds,
-- so it is written again, its stems with it.

DROP INDEX serving.jobs_edited_outside_sync_idx;
ALTER TABLE serving.jobs DROP COLUMN fingerprint;
DROP FUNCTION serving.job_fingerprint(
    text, text, text, text, text, text, text, text[], text[], text[], boolean, text[], text,
    text, timestamptz, text, timestamptz, numeric, numeric, text, text, text, text, text,
    integer, bigint, integer, integer, text, text, text, text, text, text[], text[], jsonb,
    timestamptz, text, text, boolean, numeric, numeric, text, numeric, text
);

ALTER TABLE serving.jobs ADD COLUMN language text CHECK (language ~ '^[a-z]{2,3}$');

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
    description_layout text, language text
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
    description_layout, language
)::text);

ALTER TABLE serving.jobs ADD COLUMN fingerprint text GENERATED ALWAYS AS (serving.job_fingerprint(
    source, external_id, status, title, company, department, location_text, countries,
    regions, cities, location_unresolved, employment_type, employment_type_raw, job_type,
    posted_at, posted_precision, first_seen_at, salary_min, salary_max, salary_currency,
    salary_period, url, apply_url, description, openings_12m, duplicate_group,
    experience_min, experience_max, seniority, work_mode, work_mode_source, education,
    extracted_employment_type, skills_required, skills_preferred, enrichment, enriched_at,
    company_source, legal_entity, age_known, salary_year_min, salary_year_max,
    salary_year_basis, salary_year_top_eur, description_layout, language
)) STORED;

CREATE INDEX jobs_edited_outside_sync_idx ON serving.jobs (id)
    WHERE fingerprint IS DISTINCT FROM source_fingerprint;

-- The stemmers, one configuration per language that has one: the language's own, for
-- words alone. Numbers, addresses, hosts, paths, versions and hyphenated compounds as a
-- whole are left out (the plain lexemes hold them already; a stem of them would only
-- repeat them); a compound's parts are stemmed as words.
CREATE TEXT SEARCH CONFIGURATION serving.stem_en (COPY = pg_catalog.english);
CREATE TEXT SEARCH CONFIGURATION serving.stem_de (COPY = pg_catalog.german);
CREATE TEXT SEARCH CONFIGURATION serving.stem_fr (COPY = pg_catalog.french);
ALTER TEXT SEARCH CONFIGURATION serving.stem_en DROP MAPPING IF EXISTS FOR
    numword, numhword, hword_numpart, asciihword, hword, email, protocol, url, host, url_path, file, sfloat,
    float, int, uint, version, tag, entity;
ALTER TEXT SEARCH CONFIGURATION serving.stem_de DROP MAPPING IF EXISTS FOR
    numword, numhword, hword_numpart, asciihword, hword, email, protocol, url, host, url_path, file, sfloat,
    float, int, uint, version, tag, entity;
ALTER TEXT SEARCH CONFIGURATION serving.stem_fr DROP MAPPING IF EXISTS FOR
    numword, numhword, hword_numpart, asciihword, hword, email, protocol, url, host, url_path, file, sfloat,
    float, int, uint, version, tag, entity;
