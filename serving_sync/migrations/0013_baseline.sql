-- The serving schema's tables, indexes and fixed rows: the compact, searchable copy of
-- open postings, and what the sync and the web functions keep beside it.
--
-- Version 13 on purpose: a database whose serving.schema_versions holds versions 1..13
-- (the numbered files this one replaced) is already at this point, and only takes the
-- migrations after it. Functions, triggers, grants, policies and the web role are not
-- here: each has its one current file under serving_sync/sql/, applied after the
-- migrations (docs/serving-sync.md, "The serving schema").
CREATE SCHEMA IF NOT EXISTS serving;

-- One fixed text form of the published fields (epoch seconds for times, JSON for the
-- rest), so the fingerprint does not depend on the session's TimeZone or DateStyle.
-- Part of serving.jobs, not a file under serving_sync/sql/: the generated column
-- `fingerprint` stores its output, so a new body must come with a migration that
-- computes the column again (drop the column, replace the function, add the column).
CREATE FUNCTION serving.job_fingerprint(
    source text, external_id text, status text, title text, company text, department text,
    location_text text, countries text[], regions text[], cities text[],
    location_unresolved boolean, remote text, employment_type text, job_type text,
    posted_at timestamptz, posted_precision text, first_seen_at timestamptz,
    salary_min numeric, salary_max numeric, salary_currency text, salary_period text,
    url text, apply_url text, description text, openings_12m integer, duplicate_group bigint,
    experience_min integer, experience_max integer, seniority text, work_mode text,
    education text, extracted_employment_type text, skills_required text[],
    skills_preferred text[], enrichment jsonb, enriched_at timestamptz
) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN md5(jsonb_build_array(
    source, external_id, status, title, company, department, location_text,
    countries, regions, cities, location_unresolved, remote, employment_type, job_type,
    extract(epoch FROM posted_at), posted_precision, extract(epoch FROM first_seen_at),
    salary_min, salary_max, salary_currency, salary_period, url, apply_url, description,
    openings_12m, duplicate_group, experience_min, experience_max, seniority, work_mode,
    education, extracted_employment_type, skills_required, skills_preferred, enrichment,
    extract(epoch FROM enriched_at)
)::text);

-- The published postings. A sync moves only what changed and proves what it wrote:
-- the fingerprint is computed by the database from the row's own columns (a generated
-- column), so a hand edit changes it, verification sees the row no longer matches the
-- snapshot it was written from (source_fingerprint), and a full reconcile repairs it.
CREATE TABLE serving.jobs (
    id                  bigint PRIMARY KEY,          -- core.postings.id: stable across both databases
    source              text        NOT NULL,
    external_id         text        NOT NULL,
    status              text        NOT NULL,        -- active | missing (not yet closed on evidence)
    title               text        NOT NULL,
    company             text,
    department          text,
    location_text       text,
    countries           text[]      NOT NULL DEFAULT '{}',  -- ISO2 codes the job could be in
    regions             text[]      NOT NULL DEFAULT '{}',
    cities              text[]      NOT NULL DEFAULT '{}',
    location_unresolved boolean     NOT NULL DEFAULT true,  -- unresolved parts: could be anywhere
    remote              text        NOT NULL DEFAULT 'unknown',
    employment_type     text,
    job_type            text,
    posted_at           timestamptz,
    posted_precision    text        NOT NULL DEFAULT 'unknown',
    first_seen_at       timestamptz NOT NULL,
    salary_min          numeric,
    salary_max          numeric,
    salary_currency     text,
    salary_period       text,
    url                 text        NOT NULL,
    apply_url           text,
    description         text,
    synced_at           timestamptz NOT NULL DEFAULT now(),
    -- Written by the sync (serving.search_tsv_of || serving.filter_lexemes, the text folded
    -- in Python), by the trigger serving.jobs_search_tsv for anyone else.
    search_tsv          tsvector,
    openings_12m        integer     NOT NULL DEFAULT 1,  -- distinct openings of this role first seen in 365 days
    duplicate_group     bigint,                          -- same role, near-identical text, other board/source
    -- The fingerprint of the snapshot row the sync wrote. A row whose own columns no longer
    -- give it was changed outside the sync; the partial index finds those in no time.
    source_fingerprint  text,
    -- The enrichment: experience bounds, seniority, work mode, education, the extracted
    -- employment type (beside the parser's own `employment_type`), the canonical skill
    -- keys (required, preferred), and `enrichment`, the compact evidence of every value
    -- ({field: {value, evidence, start, end}}, skills as lists of those plus `key`) for the
    -- job page and the API. `enriched_at` NULL means "not extracted" (never "no
    -- requirements"). The fingerprint covers them: an enrichment that changes is a
    -- content change.
    experience_min            integer,
    experience_max            integer,
    seniority                 text,
    work_mode                 text,
    education                 text,
    extracted_employment_type text,
    skills_required           text[] NOT NULL DEFAULT '{}',
    skills_preferred          text[] NOT NULL DEFAULT '{}',
    enrichment                jsonb,
    enriched_at               timestamptz,
    -- Required + preferred, for "skill_scope=all" with the same index support as required.
    skills_all          text[] GENERATED ALWAYS AS (skills_required || skills_preferred) STORED,
    fingerprint         text GENERATED ALWAYS AS (serving.job_fingerprint(
        source, external_id, status, title, company, department, location_text, countries,
        regions, cities, location_unresolved, remote, employment_type, job_type, posted_at,
        posted_precision, first_seen_at, salary_min, salary_max, salary_currency,
        salary_period, url, apply_url, description, openings_12m, duplicate_group,
        experience_min, experience_max, seniority, work_mode, education,
        extracted_employment_type, skills_required, skills_preferred, enrichment, enriched_at
    )) STORED,
    UNIQUE (source, external_id)
);

-- A rare word must be estimated as rare, or the planner walks the newest-first index
-- checking every row (3 s at 1M rows): with the default statistics target the
-- tsvector's most common elements stop at ~0.5% of rows, and any word not among them
-- is guessed at that.
ALTER TABLE serving.jobs ALTER COLUMN search_tsv SET STATISTICS 1000;

CREATE INDEX jobs_search_tsv_idx ON serving.jobs USING gin (search_tsv);
CREATE INDEX jobs_countries_idx ON serving.jobs USING gin (countries);
CREATE INDEX jobs_regions_idx ON serving.jobs USING gin (regions);
CREATE INDEX jobs_cities_idx ON serving.jobs USING gin (cities);
CREATE INDEX jobs_source_posted_idx ON serving.jobs (source, posted_at DESC NULLS LAST);
CREATE INDEX jobs_first_seen_idx ON serving.jobs (first_seen_at DESC);
CREATE INDEX jobs_duplicate_group_idx ON serving.jobs (duplicate_group) WHERE duplicate_group IS NOT NULL;
CREATE INDEX jobs_edited_outside_sync_idx ON serving.jobs (id)
    WHERE fingerprint IS DISTINCT FROM source_fingerprint;
CREATE INDEX jobs_remote_idx ON serving.jobs (remote);
CREATE INDEX jobs_job_type_idx ON serving.jobs ((coalesce(job_type, 'unknown')));
CREATE INDEX jobs_employment_type_idx ON serving.jobs ((coalesce(employment_type, 'unknown')));
CREATE INDEX jobs_company_idx ON serving.jobs ((coalesce(company, 'unknown')));
CREATE INDEX jobs_salary_idx ON serving.jobs (salary_currency, (coalesce(salary_max, salary_min)))
    WHERE salary_min IS NOT NULL OR salary_max IS NOT NULL;
CREATE INDEX jobs_skills_required_idx ON serving.jobs USING gin (skills_required);
CREATE INDEX jobs_skills_preferred_idx ON serving.jobs USING gin (skills_preferred);
CREATE INDEX jobs_skills_all_idx ON serving.jobs USING gin (skills_all);
CREATE INDEX jobs_seniority_idx ON serving.jobs ((coalesce(seniority, 'unknown')));
CREATE INDEX jobs_work_mode_idx ON serving.jobs ((coalesce(work_mode, 'unknown')));
CREATE INDEX jobs_experience_idx ON serving.jobs (experience_min, experience_max);
-- The list pages' index, in the default order (posted date, else the day we first saw
-- it). At 1M rows a filter-only page with a rare combination (hybrid + new grad + salary,
-- say) walked a plain sort index and fetched a ~2 KB row for each of the thousands of
-- postings it rejected (400 ms, and 3 s cold). This one carries every filter column of the
-- parse, so the newest-first walk filters index entries (an index-only scan, with the
-- visibility map current) and only the page's own rows are read. It also serves the facet
-- counts without a text query.
CREATE INDEX jobs_list_idx ON serving.jobs ((coalesce(posted_at, first_seen_at)), id) INCLUDE (
    countries, regions, cities, remote, job_type, employment_type, source, company,
    posted_at, first_seen_at, salary_min, salary_max, salary_currency
);

-- Liveness (the day a posting was last seen) lives in a narrow table of its own: the
-- daily refresh of every open posting rewrites 20-byte rows, never the content rows with
-- their description and tsvector.
CREATE TABLE serving.job_liveness (
    id           bigint PRIMARY KEY REFERENCES serving.jobs (id) ON DELETE CASCADE,
    last_seen_on date NOT NULL              -- day granularity: a re-poll alone is not a change
);

-- One row per sync. Each applied sync records the source snapshot it published, so the
-- next one stages only postings changed by transactions that snapshot did not see.
CREATE TABLE serving.sync_runs (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    dry_run         boolean     NOT NULL,
    status          text        NOT NULL,  -- applied | previewed | failed
    source_rows     integer     NOT NULL DEFAULT 0,
    inserted        integer     NOT NULL DEFAULT 0,
    updated         integer     NOT NULL DEFAULT 0,
    removed         integer     NOT NULL DEFAULT 0,
    unchanged       integer     NOT NULL DEFAULT 0,
    error           text,
    mode            text,                  -- full | incremental
    mode_reason     text,                  -- why a full reconcile ran (asked, periodic, no base...)
    source_identity text,                  -- which authoritative database the snapshot is of
    source_snapshot text,                  -- pg_snapshot of that read (applied runs only)
    retained        integer     NOT NULL DEFAULT 0,  -- kept their last good content
    liveness        integer     NOT NULL DEFAULT 0,  -- last_seen_on refreshed
    closed          integer     NOT NULL DEFAULT 0,  -- written to closed_jobs
    pruned          integer     NOT NULL DEFAULT 0   -- closed_jobs past retention
);
CREATE INDEX sync_runs_applied_idx ON serving.sync_runs (id DESC) WHERE status = 'applied';

-- Recent closures, so a job page can answer truthfully ("closed on ...", HTTP 410) instead
-- of a bare 404. The sync writes it; rows older than the retention setting (default 90
-- days) are pruned by the sync.
CREATE TABLE serving.closed_jobs (
    id          bigint PRIMARY KEY,            -- core.postings.id, as in serving.jobs
    source      text        NOT NULL,
    title       text        NOT NULL,
    company     text,
    closed_at   timestamptz NOT NULL,
    reason      text        NOT NULL           -- expired | not_found | filtered | removed
);
CREATE INDEX closed_jobs_closed_at_idx ON serving.closed_jobs (closed_at);

-- The counts of the unfiltered context, kept by the sync (see serving.refresh_facet_totals).
CREATE TABLE serving.facet_totals (
    kind  text NOT NULL CHECK (kind IN ('all', 'one')),
    facet text NOT NULL,
    value text,
    count bigint NOT NULL
);

-- Freshness per source, as of the last applied sync: written by the sync inside its own
-- transaction (serving_sync.freshness.publish), so it always describes exactly what
-- that sync made searchable. The web role reads it only through web_freshness().
CREATE TABLE serving.freshness (
    source               text PRIMARY KEY,
    computed_at          timestamptz NOT NULL,
    last_discover_at     timestamptz,
    last_fetch_at        timestamptz,
    last_parse_at        timestamptz,
    last_check_at        timestamptz,
    last_sync_at         timestamptz NOT NULL,
    published_recently   integer NOT NULL,
    lag_p50_s            double precision,
    lag_p95_s            double precision,
    lag_max_s            double precision,
    unpublished          integer NOT NULL,
    oldest_unpublished_s double precision,
    max_lag_s            double precision NOT NULL,
    lagging              boolean NOT NULL
);

-- Every lexeme of every search_tsv ever written, for a prefix written as the words it
-- stands for (see serving.prefix_words, serving.lexicon_add).
CREATE TABLE serving.lexicon (
    lexeme text COLLATE "C" PRIMARY KEY  -- byte order, as tsquery compares a prefix
);

-- The facet bitmaps (see serving.web_facet_bits) and what they were built from.
CREATE TABLE serving.facet_writes (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    writes   bigint  NOT NULL DEFAULT 0  -- statements that changed serving.jobs
);
INSERT INTO serving.facet_writes DEFAULT VALUES;

CREATE TABLE serving.facet_bits_build (
    only_row      boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    writes        bigint      NOT NULL,  -- facet_writes.writes of the snapshot built from
    slots         integer     NOT NULL,  -- postings, the length of every bitmap
    word_min_rows integer     NOT NULL,  -- a word in this many postings has a bitmap
    built_at      timestamptz NOT NULL,
    build_ms      integer     NOT NULL
);

CREATE TABLE serving.facet_slots (
    id   bigint  PRIMARY KEY,
    slot integer NOT NULL
);

-- facet: a group (country, region, city, remote, job_type, employment_type, source,
-- month, seniority, work_mode, experience (its bands), enrichment, skill (required:
-- 'skill'; required or preferred: 'skill_all'; 'unknown' is not extracted)), 'salary'
-- (t / f), 'day' and 'sort_month' (of coalesce(posted_at, first_seen_at), UTC), 'word'
-- (a lexeme), 'text' (a search_tsv at all: a posting without one matches no query, not
-- even a negation), 'all' (every slot).
CREATE TABLE serving.facet_bits (
    facet text    NOT NULL,
    value text    NOT NULL,
    size  integer NOT NULL,
    bits  varbit  NOT NULL,
    PRIMARY KEY (facet, value)
);
-- Stored uncompressed: a compressed bitmap is decompressed at every read (0.27 ms against
-- 0.09 ms for 1M bits), and a request reads a hundred of them.
ALTER TABLE serving.facet_bits ALTER COLUMN bits SET STORAGE EXTERNAL;

CREATE TABLE serving.facet_bits_tail (
    facet   text    PRIMARY KEY,
    largest integer NOT NULL  -- postings of the largest value without a bitmap
);

CREATE TABLE serving.facet_companies (
    value text    PRIMARY KEY,  -- coalesce(company, 'unknown')
    lo    integer NOT NULL,     -- its first slot
    size  integer NOT NULL
);

-- Row level security on every serving table, as Supabase has it (API roles would
-- otherwise see every table): the owner (the sync) is exempt, and only the policies
-- under serving_sync/sql/policies/ let another role read.
ALTER TABLE serving.jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.job_liveness ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.sync_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.closed_jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.schema_versions ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_totals ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.freshness ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.lexicon ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_writes ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_bits_build ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_slots ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_bits ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_bits_tail ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_companies ENABLE ROW LEVEL SECURITY;
