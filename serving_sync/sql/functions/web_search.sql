-- One page of results, one row more than asked (the caller's "is there a next page").
-- newest: keyset on (sort_at, id). relevance: ts_rank over the newest `candidates`
-- matches only (ranking every match of a common word is what makes naive search slow),
-- keyset on (rank, id), ranked by the query as typed ($11, see typed_tsquery). The
-- candidate cap is bounded here too (1..5000), not only by the caller.
--
-- A word plus filters, newest first, from a short walk of the list index. One GIN scan
-- of the word and the filter lexemes (see filter_lexeme) is right when the combination
-- is rare, and slow when it is broad: 'software engineer' with remote = yes and a salary
-- matched 8,464 of 1M postings, and the GIN scan alone took 120-290 ms (it reads most of
-- four long posting lists; the last word, a prefix, is a partial match whose whole bitmap
-- is built first), then 8,265 heap pages for a page of 21. A broad combination is exactly
-- the one whose newest matches are near the top of the newest-first list index: the
-- newest 5,000 index entries held 39 of them.
--
-- So, newest first with a text query and filters of the parse only, web_search first
-- walks the newest entries of the list index, checks the filters on the index entries
-- themselves (every parse filter column is included in jobs_list_idx, so this is an
-- index-only scan), and looks up the text of the survivors one by one, in order, until
-- the page is full. A full page from the walk is the exact answer: every posting newer
-- than the last entry walked was looked at. A short page proves nothing about the
-- postings further down, so then it answers with the GIN scan.
--
-- With posted_within_days, the matches all lie in the window at the top of the index:
-- when the planner puts the window at no more than `jobharbor.list_walk_rows` postings,
-- the walk covers all of it (the window bounds the index scan) and its answer is exact
-- however short, with no fallback.
--
-- Otherwise, how far to walk: three pages' worth at the planner's estimate of the share
-- of postings matching the word and the filters (the tsvector's statistics know each
-- filter lexeme), at least 1,000 entries. A combination estimated too rare for a walk of
-- `jobharbor.list_walk_rows` entries goes to the GIN scan directly. At 1M rows a walk
-- runs at about 0.3 us an entry (150,000: ~45 ms); a word plus three filters had p95
-- 64 ms with a 50,000 bound and 29-39 ms with 150,000 (no better with 300,000). The walk
-- is bounded both ways (its entries, and its text look-ups stop at the page): a miss
-- costs at most the walk.
--
-- The prefix split. When the last word is a prefix still ('engineer':*, a GIN partial
-- match whose whole bitmap is built before any rare filter can narrow it: 'sales':* with
-- three rare filters took 166 ms for 107 postings) and the rest of the query (the other
-- words and the filter lexemes) is estimated at 2,000 postings or fewer, the GIN scan
-- takes only the rest and the whole text query is checked on each of its rows (10 ms
-- there). Checking detoasts each row's tsvector, cheap from memory but about 1 ms a row
-- from a cold disk, hence the low bound.
--
-- A rare text query alone (no filter, newest first): it
-- reads all its matches from the text index and keeps the newest page, in static
-- statements whose one generic plan is kept across calls. Planning the EXECUTEd query
-- with the tsquery as a constant read the text column's statistics on every call (0.3-0.5
-- ms of a rare word's page at 1M rows); the statement here knows its plan, and
-- serving.text_is_rare tells it the query is rare from serving.lexeme_shares (the same
-- estimate, kept by the sync) by a lookup.
CREATE OR REPLACE FUNCTION serving.web_search(
    q text, q_prefix boolean, filters serving.web_filter,
    sort text, after_at timestamptz, after_rank real, after_id bigint,
    page_rows integer, candidates integer DEFAULT 1000
) RETURNS TABLE (
    id bigint, title text, company text, location_text text, countries text[], cities text[],
    job_type text, employment_type text[], posted_at timestamptz,
    posted_precision text, first_seen_at timestamptz, sort_at timestamptz, age_known boolean,
    salary_min numeric, salary_max numeric, salary_currency text, salary_period text,
    salary_year_min numeric, salary_year_max numeric, salary_year_basis text,
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
-- Its static statements (a rare word's page, see above) keep one generic plan: a custom
-- plan would be made on every call from the statistics, the cost the rare path avoids.
-- The EXECUTEd statements are planned on every call whatever this says.
SET plan_cache_mode = force_generic_plan
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
    where_sql text;  -- web_where(), or its text query alone when no filter is left
    estimate record;
    joined record;
    cols constant text := 'j.id, j.title, j.company, j.location_text, j.countries, j.cities,
        j.job_type, j.employment_type, j.posted_at, j.posted_precision,
        j.first_seen_at, nullif(j.sort_at, ''-infinity''), j.age_known, j.salary_min, j.salary_max,
        j.salary_currency, j.salary_period, j.salary_year_min, j.salary_year_max,
        j.salary_year_basis, j.source, j.openings_12m, j.experience_min,
        j.experience_max, j.seniority, j.work_mode, j.skills_required, j.skills_preferred,
        j.enriched_at IS NOT NULL';
BEGIN
    IF page_rows IS NULL OR page_rows < 1 OR page_rows > 51 THEN
        RAISE EXCEPTION 'page_rows must be 1..51' USING ERRCODE = '22023';
    END IF;
    candidates := least(greatest(coalesce(candidates, 1000), 1), 5000);
    IF sort IS DISTINCT FROM 'relevance' AND serving.web_unfiltered(filters)
       AND serving.text_is_rare(tsq, page_rows) THEN
        -- A rare text query alone (see above): statements whose plans are kept. First,
        -- so none of the query's other paths is weighed (a prefix left partial, which
        -- the split below is for, is never called rare).
        walked := ARRAY(
            SELECT m.id
            FROM (SELECT h.id, h.sort_at FROM serving.jobs h
                  WHERE h.search_tsv @@ tsq OFFSET 0) AS m  -- every match, from the text index
            WHERE after_id IS NULL
               OR (m.sort_at, m.id) < (coalesce(after_at, '-infinity'), after_id)
            ORDER BY m.sort_at DESC, m.id DESC LIMIT page_rows);
        RETURN QUERY
        SELECT j.id, j.title, j.company, j.location_text, j.countries, j.cities,
               j.job_type, j.employment_type, j.posted_at, j.posted_precision,
               j.first_seen_at, nullif(j.sort_at, '-infinity'), j.age_known, j.salary_min,
               j.salary_max, j.salary_currency, j.salary_period, j.salary_year_min,
               j.salary_year_max, j.salary_year_basis, j.source, j.openings_12m,
               j.experience_min, j.experience_max, j.seniority, j.work_mode,
               j.skills_required, j.skills_preferred, j.enriched_at IS NOT NULL, NULL::real
        FROM unnest(walked) WITH ORDINALITY AS p(id, place)
        JOIN serving.jobs j ON j.id = p.id
        ORDER BY p.place;
        RETURN;
    END IF;
    IF coalesce(sort, 'newest') = 'relevance' OR text_q IS NULL OR walk = 0
       OR serving.web_unfiltered(filters)  -- the walk is for the filters of the parse only
       OR num_nonnulls(filters.skill, filters.experience, filters.experience_unknown,
                       filters.seniority) > 0 THEN
        walk := 0;
    ELSIF filters.include_undated AND filters.posted_within_days IS NOT NULL THEN
        walk := 0;  -- the window and the postings of unknown age, at the two ends of the list
    ELSIF filters.posted_within_days IS NOT NULL
          AND serving.window_rows(filters.posted_within_days) <= walk THEN
        whole_window := true;  -- every entry of the window: exact, however short (see above)
    ELSE
        walk := serving.list_walk_size(walk, page_rows, serving.web_match(text_q, filters));
    END IF;
    IF walk > 0 THEN
        EXECUTE serving.list_walk_sql() INTO walked
        USING NULL::tsquery, filters, after_at, after_rank, after_id, candidates, page_rows,
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
    IF position(':*' IN text_q::text) > 0 THEN  -- the prefix split (see above)
        exact := serving.web_match(
            nullif(coalesce(serving.prefix_rest(text_q), ''), '')::tsquery, filters);
        IF exact IS NOT NULL THEN
            estimate := serving.estimated_rows(exact);
            IF estimate.matching <= 2000 THEN
                -- A subquery the planner cannot flatten: it must take the rest's
                -- bitmap. Left to itself it walked the newest-first index checking
                -- the text on each row (it prices a detoast at nothing): 9.5 s.
                recheck := text_q;
                rows_sql := '(SELECT h.* FROM serving.jobs h WHERE h.search_tsv @@ $10
                              AND ts_match_vq(h.search_tsv, $9) OFFSET 0) j';
            END IF;
        END IF;
    END IF;
    joined := serving.web_join_lexemes(tsq, filters);  -- one GIN scan (see filter_lexeme)
    tsq := joined.tsq;
    filters := joined.filters;
    IF recheck IS NOT NULL THEN
        tsq := NULL;  -- split: the rest's scan ($10) and the check on each row ($9) match
    END IF;
    where_sql := CASE WHEN serving.web_unfiltered(filters) THEN serving.web_where_text()
                      ELSE serving.web_where() END;
    IF sort = 'relevance' AND text_q IS NOT NULL THEN
        RETURN QUERY EXECUTE
            'WITH candidates AS (SELECT ' || cols || ', ts_rank(j.search_tsv, $11) AS rank
                 FROM ' || rows_sql || where_sql ||
            ' ORDER BY j.sort_at DESC, j.id DESC LIMIT $6)
             SELECT * FROM candidates c
             WHERE $5 IS NULL OR (c.rank, c.id) < ($4, $5)
             ORDER BY c.rank DESC, c.id DESC LIMIT $7'
        USING tsq, filters, after_at, after_rank, after_id, candidates, page_rows, text_q,
              recheck, exact, rank_q;
    ELSE
        -- The page's ids first, from the list index alone (filters on its included
        -- columns), then their rows: a rare filter combination walks narrow index
        -- entries instead of fetching a wide row for every posting it rejects.
        RETURN QUERY EXECUTE
            'WITH page AS (
                 SELECT j.id, j.sort_at
                 FROM ' || rows_sql || where_sql ||
            '    AND ($5 IS NULL OR (j.sort_at, j.id) < (coalesce($3, ''-infinity''), $5))
                 ORDER BY j.sort_at DESC, j.id DESC LIMIT $7)
             SELECT ' || cols || ', NULL::real FROM page p JOIN serving.jobs j ON j.id = p.id
             ORDER BY p.sort_at DESC, p.id DESC'
        USING tsq, filters, after_at, after_rank, after_id, candidates, page_rows, text_q,
              recheck, exact;
    END IF;
END
$$;
