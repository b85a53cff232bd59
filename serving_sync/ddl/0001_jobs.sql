-- serving schema v1: the compact, searchable copy of open postings.
CREATE SCHEMA IF NOT EXISTS serving;

-- Lowercase without diacritics; IMMUTABLE so it can feed a generated tsvector.
CREATE OR REPLACE FUNCTION serving.fold(value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN lower(translate(normalize(value, NFC), {{FOLD_FROM}}, {{FOLD_TO}}));

CREATE TABLE serving.jobs (
    id                bigint PRIMARY KEY,          -- core.postings.id: stable across both databases
    source            text        NOT NULL,
    external_id       text        NOT NULL,
    status            text        NOT NULL,        -- active | missing (not yet closed on evidence)
    title             text        NOT NULL,
    company           text,
    department        text,
    location_text     text,
    countries         text[]      NOT NULL DEFAULT '{}',  -- ISO2 codes the job could be in
    regions           text[]      NOT NULL DEFAULT '{}',
    cities            text[]      NOT NULL DEFAULT '{}',
    location_unresolved boolean   NOT NULL DEFAULT true,  -- unresolved parts: could be anywhere
    remote            text        NOT NULL DEFAULT 'unknown',
    employment_type   text,
    job_type          text,
    posted_at         timestamptz,
    posted_precision  text        NOT NULL DEFAULT 'unknown',
    first_seen_at     timestamptz NOT NULL,
    last_seen_on      date        NOT NULL,        -- day granularity: a re-poll alone is not a change
    salary_min        numeric,
    salary_max        numeric,
    salary_currency   text,
    salary_period     text,
    url               text        NOT NULL,
    apply_url         text,
    description       text,
    fingerprint       text        NOT NULL,       -- md5 of the published fields
    synced_at         timestamptz NOT NULL DEFAULT now(),
    search_tsv        tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', serving.fold(coalesce(title, ''))), 'A')
        || setweight(to_tsvector('simple', serving.fold(coalesce(company, ''))), 'B')
        || setweight(to_tsvector('simple', serving.fold(coalesce(location_text, ''))), 'B')
        || setweight(to_tsvector('simple', serving.fold(coalesce(left(description, 20000), ''))), 'D')
    ) STORED,
    UNIQUE (source, external_id)
);

CREATE INDEX jobs_search_tsv_idx ON serving.jobs USING gin (search_tsv);
CREATE INDEX jobs_countries_idx ON serving.jobs USING gin (countries);
CREATE INDEX jobs_source_posted_idx ON serving.jobs (source, posted_at DESC NULLS LAST);
CREATE INDEX jobs_first_seen_idx ON serving.jobs (first_seen_at DESC);

CREATE TABLE serving.sync_runs (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz,
    dry_run       boolean     NOT NULL,
    status        text        NOT NULL,         -- applied | previewed | failed
    source_rows   integer     NOT NULL DEFAULT 0,
    inserted      integer     NOT NULL DEFAULT 0,
    updated       integer     NOT NULL DEFAULT 0,
    removed       integer     NOT NULL DEFAULT 0,
    unchanged     integer     NOT NULL DEFAULT 0,
    error         text
);

-- Web search: websearch syntax ("quoted phrases", OR, -exclusions), folded like the index.
CREATE OR REPLACE FUNCTION serving.search_jobs(query text, max_rows integer DEFAULT 20)
RETURNS TABLE (id bigint, title text, company text, location_text text, source text, rank real)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT j.id, j.title, j.company, j.location_text, j.source, ts_rank(j.search_tsv, q) AS rank
    FROM serving.jobs AS j, websearch_to_tsquery('simple', serving.fold(query)) AS q
    WHERE j.search_tsv @@ q
    ORDER BY rank DESC, j.posted_at DESC NULLS LAST, j.id
    LIMIT least(greatest(max_rows, 1), 100)
$$;
