-- serving schema v12: a prefix becomes the words it stands for.
--
-- The last word of a query also matches as a prefix ('engin' -> 'engin':*). In the text
-- index that is a partial match: GIN reads the posting lists of every lexeme under the
-- prefix into one bitmap before anything else can narrow it, so a common prefix with
-- rare filters paid for the whole prefix ('sales':* and three filters: 74-88 ms at 1M
-- rows for 506 matches), and v11's way around it (take the rest's bitmap, check the text
-- row by row) detoasts one tsvector a row, about 1 ms each from a cold disk.
--
-- Written as the lexemes it covers ('engineer' | 'engineering'), the same query is an
-- ordinary GIN scan: its fast scan skips through the words' lists by the rarer filters'
-- (the same 506 matches: 18 ms), the bitmap of a common prefix alone is cheaper to build
-- ('engineer':*, 435,668 postings: 127 ms against 83 ms), and nothing is detoasted.
--
-- serving.lexicon holds every lexeme of every search_tsv ever written: a statement
-- trigger adds the new ones after each INSERT or UPDATE (one set-based insert per
-- statement, not one per row). It only grows, so it is a superset of the lexemes in
-- serving.jobs; a lexeme no posting has any more adds a term that matches nothing, and
-- the expansion is still exactly the prefix. serving.rebuild_lexicon() trims it.
--
-- A prefix covering more than 50 lexemes stays a partial match: GIN merges the lists of
-- all the entries of a query item by item, which gets slower than one bitmap as they
-- multiply. So does a prefix covering none (the partial match finds nothing, quickly).
-- No write may slip between the backfill below and the triggers that take over from it.
LOCK TABLE serving.jobs IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE serving.lexicon (
    lexeme text COLLATE "C" PRIMARY KEY  -- byte order, as tsquery compares a prefix
);
ALTER TABLE serving.lexicon ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON serving.lexicon FROM PUBLIC, jobharbor_web;

INSERT INTO serving.lexicon (lexeme)
SELECT s.word FROM ts_stat('SELECT search_tsv FROM serving.jobs') AS s
ON CONFLICT DO NOTHING;

CREATE FUNCTION serving.lexicon_add() RETURNS trigger
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
BEGIN
    -- In order: two writers adding the same new words take their locks in the same order,
    -- so one waits for the other instead of deadlocking.
    INSERT INTO serving.lexicon (lexeme)
    SELECT DISTINCT w.lexeme COLLATE "C"
    FROM written_rows r CROSS JOIN LATERAL unnest(tsvector_to_array(r.search_tsv)) AS w(lexeme)
    ORDER BY 1
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION serving.lexicon_add() FROM PUBLIC;

-- Two triggers: a trigger with transition tables takes one event.
CREATE TRIGGER jobs_lexicon_insert AFTER INSERT ON serving.jobs
    REFERENCING NEW TABLE AS written_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.lexicon_add();
CREATE TRIGGER jobs_lexicon_update AFTER UPDATE ON serving.jobs
    REFERENCING NEW TABLE AS written_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.lexicon_add();

-- The lexicon as it would be built today: the lexemes of the postings now in
-- serving.jobs (a full pass over the table: ~45 s at 1M rows). Returns how many went.
CREATE FUNCTION serving.rebuild_lexicon() RETURNS bigint
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
DECLARE
    removed bigint;
BEGIN
    LOCK TABLE serving.jobs IN SHARE MODE;  -- no write may add a lexeme meanwhile
    CREATE TEMPORARY TABLE lexicon_now ON COMMIT DROP AS
        SELECT s.word COLLATE "C" AS lexeme FROM ts_stat('SELECT search_tsv FROM serving.jobs') AS s;
    DELETE FROM serving.lexicon l
    WHERE NOT EXISTS (SELECT 1 FROM lexicon_now n WHERE n.lexeme = l.lexeme);
    GET DIAGNOSTICS removed = ROW_COUNT;
    INSERT INTO serving.lexicon (lexeme) SELECT n.lexeme FROM lexicon_now n ON CONFLICT DO NOTHING;
    DROP TABLE lexicon_now;
    RETURN removed;
END
$$;
REVOKE ALL ON FUNCTION serving.rebuild_lexicon() FROM PUBLIC;

-- The lexemes starting with `prefix`, as tsquery text ('a' | 'b'), or NULL when there are
-- none or more than 50. In byte order the lexemes with a prefix are one run starting at
-- the prefix itself, so the first 51 entries from there hold all of them, or show that
-- there are too many.
CREATE FUNCTION serving.prefix_words(prefix text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
    SELECT CASE WHEN count(*) FILTER (WHERE w.covered) BETWEEN 1 AND 50
                THEN string_agg('''' || replace(replace(w.lexeme, '\', '\\'), '''', '''''') || '''',
                                ' | ' ORDER BY w.lexeme) FILTER (WHERE w.covered) END
    FROM (SELECT l.lexeme, starts_with(l.lexeme, prefix COLLATE "C") AS covered
          FROM serving.lexicon l
          WHERE l.lexeme >= prefix COLLATE "C"
          ORDER BY l.lexeme LIMIT 51) AS w
$$;
REVOKE ALL ON FUNCTION serving.prefix_words(text) FROM PUBLIC;

-- The query as typed: v7's web_tsquery (the last word a prefix), now also the query that
-- ranks. Ranking the expansion instead would make a posting's rank depend on how many
-- lexicon words share the prefix (ts_rank divides by the query's operands), so ranks
-- would move whenever a sync adds or trims such a word, and a relevance cursor would
-- skip or repeat rows; and an AND query would score the alternatives' proximity to each
-- other. A NULL flag means no prefix, as in v7.
CREATE FUNCTION serving.typed_tsquery(query text, last_is_prefix boolean) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    parsed tsquery := websearch_to_tsquery('simple', serving.fold(coalesce(query, '')));
    plain text := parsed::text;
BEGIN
    IF plain = '' THEN
        RETURN NULL;  -- nothing searchable (only punctuation, say): no text condition
    END IF;
    IF coalesce(last_is_prefix, false) AND right(plain, 1) = '''' THEN
        RETURN (plain || ':*')::tsquery;
    END IF;
    RETURN parsed;
END
$$;
REVOKE ALL ON FUNCTION serving.typed_tsquery(text, boolean) FROM PUBLIC;

-- A typed query with its prefix written as its words when the lexicon allows (see
-- above). The prefix is the last operand of the text form, a quoted lexeme (a quote
-- inside doubled, a backslash escaping the next character) and ':*'.
CREATE FUNCTION serving.prefix_as_words(typed tsquery) RETURNS tsquery
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    plain text := typed::text;
    quoted text;
    words text;
BEGIN
    IF typed IS NULL OR right(plain, 2) <> ':*' THEN
        RETURN typed;
    END IF;
    quoted := substring(plain FROM '''(?:[^''\\]|''''|\\.)*'':\*$');
    words := serving.prefix_words(
        regexp_replace(substr(quoted, 2, length(quoted) - 4), '[''\\](.)', '\1', 'g'));
    IF words IS NULL THEN
        RETURN typed;
    END IF;
    RETURN (left(plain, length(plain) - length(quoted)) || '( ' || words || ' )')::tsquery;
END
$$;
REVOKE ALL ON FUNCTION serving.prefix_as_words(tsquery) FROM PUBLIC;

-- The query that matches. No longer the web role's to call (it would list the lexicon,
-- words of postings gone included): the web_* functions call it as the owner.
CREATE OR REPLACE FUNCTION serving.web_tsquery(query text, last_is_prefix boolean)
RETURNS tsquery
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
RETURN serving.prefix_as_words(serving.typed_tsquery(query, last_is_prefix));
REVOKE EXECUTE ON FUNCTION serving.web_tsquery(text, boolean) FROM jobharbor_web;

-- v11's web_search, ranking by the typed query ($29) instead of the matching one; the
-- rest is unchanged (a migration restates the whole function).
CREATE OR REPLACE FUNCTION serving.web_search(
    q text, q_prefix boolean,
    p_country text[], p_region text[], p_city text[], p_remote text[], p_job_type text[],
    p_employment_type text[], p_source text[], p_company text[],
    p_posted_within_days integer, p_has_salary boolean, p_salary_min numeric, p_salary_currency text,
    p_skill text[], p_skill_match text, p_skill_scope text, p_experience int4range[],
    p_experience_unknown boolean, p_seniority text[], p_work_mode text[],
    sort text, after_at timestamptz, after_rank real, after_id bigint,
    page_rows integer, candidates integer DEFAULT 1000
) RETURNS TABLE (
    id bigint, title text, company text, location_text text, countries text[], cities text[],
    remote text, job_type text, employment_type text, posted_at timestamptz,
    posted_precision text, first_seen_at timestamptz, sort_at timestamptz,
    salary_min numeric, salary_max numeric, salary_currency text, salary_period text,
    source text, openings_12m integer, experience_min integer, experience_max integer,
    seniority text, work_mode text, skills_required text[], skills_preferred text[],
    enriched boolean, rank real
)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
-- A common word's match bitmap (200k postings at 1M rows) must stay exact: in the
-- default 4 MB it went lossy and every posting on those pages was rechecked (2.1 s
-- instead of 0.4 s for a word plus three filters).
SET work_mem = '32MB'
AS $$
DECLARE
    rank_q tsquery := serving.typed_tsquery(q, q_prefix);  -- ranks (see typed_tsquery)
    text_q tsquery := serving.prefix_as_words(rank_q);  -- matches: web_tsquery, parsed once
    tsq tsquery := text_q;
    walk integer := serving.list_walk_rows();
    walked bigint[];
    whole_window boolean := false;
    exact tsquery;
    recheck tsquery;  -- the text, checked on each row of a split query
    rows_sql text := 'serving.jobs j';
    estimate record;
    cols constant text := 'j.id, j.title, j.company, j.location_text, j.countries, j.cities,
        j.remote, j.job_type, j.employment_type, j.posted_at, j.posted_precision,
        j.first_seen_at, coalesce(j.posted_at, j.first_seen_at), j.salary_min, j.salary_max,
        j.salary_currency, j.salary_period, j.source, j.openings_12m, j.experience_min,
        j.experience_max, j.seniority, j.work_mode, j.skills_required, j.skills_preferred,
        j.enriched_at IS NOT NULL';
BEGIN
    IF page_rows IS NULL OR page_rows < 1 OR page_rows > 51 THEN
        RAISE EXCEPTION 'page_rows must be 1..51' USING ERRCODE = '22023';
    END IF;
    candidates := least(greatest(coalesce(candidates, 1000), 1), 5000);
    IF coalesce(sort, 'newest') = 'relevance' OR text_q IS NULL OR walk = 0
       OR num_nonnulls(p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
                        p_source, p_company, p_posted_within_days, p_has_salary,
                        p_salary_min) = 0
       OR num_nonnulls(p_skill, p_experience, p_experience_unknown, p_seniority,
                       p_work_mode) > 0 THEN
        walk := 0;
    ELSIF p_posted_within_days IS NOT NULL
          AND serving.window_rows(p_posted_within_days) <= walk THEN
        whole_window := true;  -- every entry of the window: exact, however short (see above)
    ELSE
        walk := serving.list_walk_size(walk, page_rows, serving.web_match(
            text_q, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
            p_source, p_company, p_has_salary));
    END IF;
    IF walk > 0 THEN
        EXECUTE serving.list_walk_sql() INTO walked
        USING NULL::tsquery, p_country, p_region, p_city, p_remote, p_job_type,
              p_employment_type, p_source, p_company, p_posted_within_days, p_has_salary,
              p_salary_min, p_salary_currency, p_skill, p_skill_match, p_skill_scope,
              p_experience, p_experience_unknown, p_seniority, p_work_mode,
              after_at, after_rank, after_id, candidates, page_rows,
              CASE WHEN whole_window THEN NULL ELSE walk END, text_q;
        IF whole_window OR cardinality(walked) = page_rows THEN  -- exact (see above)
            RETURN QUERY EXECUTE
                'SELECT ' || cols || ', NULL::real
                 FROM unnest($1) WITH ORDINALITY AS p(id, place)
                 JOIN serving.jobs j ON j.id = p.id ORDER BY p.place'
            USING coalesce(walked, '{}');
            RETURN;
        END IF;
    END IF;
    IF tsq IS NOT NULL THEN  -- the lexeme filters join the text: one GIN scan (see v9, 4.)
        tsq := serving.web_match(tsq, p_country, p_region, p_city, p_remote, p_job_type,
                                 p_employment_type, p_source, p_company, p_has_salary);
        IF position(':*' IN text_q::text) > 0 THEN  -- the prefix split (see above)
            exact := serving.web_match(
                nullif(coalesce(serving.prefix_rest(text_q), ''), '')::tsquery, p_country,
                p_region, p_city, p_remote, p_job_type, p_employment_type, p_source,
                p_company, p_has_salary);
            IF exact IS NOT NULL THEN
                estimate := serving.estimated_rows(exact);
                IF estimate.matching <= 2000 THEN
                    -- A subquery the planner cannot flatten: it must take the rest's
                    -- bitmap. Left to itself it walked the newest-first index checking
                    -- the text on each row (it prices a detoast at nothing): 9.5 s.
                    tsq := NULL;
                    recheck := text_q;
                    rows_sql := '(SELECT h.* FROM serving.jobs h WHERE h.search_tsv @@ $28
                                  AND ts_match_vq(h.search_tsv, $27) OFFSET 0) j';
                END IF;
            END IF;
        END IF;
        p_country := NULL; p_region := NULL; p_city := NULL; p_remote := NULL;
        p_job_type := NULL; p_employment_type := NULL; p_source := NULL; p_company := NULL;
        p_has_salary := NULL;
    END IF;
    IF sort = 'relevance' AND text_q IS NOT NULL THEN
        RETURN QUERY EXECUTE
            'WITH candidates AS (SELECT ' || cols || ', ts_rank(j.search_tsv, $29) AS rank
                 FROM ' || rows_sql || serving.web_where() ||
            ' ORDER BY coalesce(j.posted_at, j.first_seen_at) DESC, j.id DESC LIMIT $24)
             SELECT * FROM candidates c
             WHERE $23 IS NULL OR (c.rank, c.id) < ($22, $23)
             ORDER BY c.rank DESC, c.id DESC LIMIT $25'
        USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
              p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
              p_salary_currency, p_skill, p_skill_match, p_skill_scope, p_experience,
              p_experience_unknown, p_seniority, p_work_mode,
              after_at, after_rank, after_id, candidates, page_rows, text_q, recheck, exact,
              rank_q;
    ELSE
        -- The page's ids first, from the list index alone (filters on its included
        -- columns), then their rows: a rare filter combination walks narrow index
        -- entries instead of fetching a wide row for every posting it rejects.
        RETURN QUERY EXECUTE
            'WITH page AS (
                 SELECT j.id, coalesce(j.posted_at, j.first_seen_at) AS sort_at
                 FROM ' || rows_sql || serving.web_where() ||
            '    AND ($23 IS NULL OR (coalesce(j.posted_at, j.first_seen_at), j.id) < ($21, $23))
                 ORDER BY coalesce(j.posted_at, j.first_seen_at) DESC, j.id DESC LIMIT $25)
             SELECT ' || cols || ', NULL::real FROM page p JOIN serving.jobs j ON j.id = p.id
             ORDER BY p.sort_at DESC, p.id DESC'
        USING tsq, p_country, p_region, p_city, p_remote, p_job_type, p_employment_type,
              p_source, p_company, p_posted_within_days, p_has_salary, p_salary_min,
              p_salary_currency, p_skill, p_skill_match, p_skill_scope, p_experience,
              p_experience_unknown, p_seniority, p_work_mode,
              after_at, after_rank, after_id, candidates, page_rows, text_q, recheck, exact;
    END IF;
END
$$;
