-- The bitmaps, rebuilt from the transaction's snapshot: it must be one snapshot
-- (REPEATABLE READ), or the bitmaps could mix two states of serving.jobs. The snapshot
-- is recorded: the postings written by a transaction it does not see are the ones
-- web_facet_bits counts from their rows (serving.facet_dirty). Past `dirty_share` of
-- the slots (at least `dirty_min` postings) written since, the bitmaps are not read.
-- Returns the number of slots. The caller serializes builds (serving_sync.facet_bits).
CREATE OR REPLACE FUNCTION serving.build_facet_bits(
    word_min_share real DEFAULT 0.01,
    max_words integer DEFAULT 2000,
    values_kept integer DEFAULT 256,
    dirty_share real DEFAULT 0.02,
    dirty_min integer DEFAULT 1000
) RETURNS integer
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
SET work_mem = '256MB'
AS $$
DECLARE
    started constant timestamptz := clock_timestamp();
    n integer;
    word_min integer;
BEGIN
    IF current_setting('transaction_isolation') NOT IN ('repeatable read', 'serializable') THEN
        RAISE EXCEPTION 'serving.build_facet_bits needs one snapshot: call it in a REPEATABLE READ transaction'
            USING ERRCODE = 'invalid_transaction_state';
    END IF;
    -- DELETE, not TRUNCATE: readers keep reading the old bitmaps (with the postings
    -- written since counted from their rows) instead of waiting for this transaction.
    DELETE FROM serving.facet_bits_build;
    DELETE FROM serving.facet_bits;
    DELETE FROM serving.facet_bits_tail;
    DELETE FROM serving.facet_companies;
    DELETE FROM serving.facet_slots;

    INSERT INTO serving.facet_slots (id, slot)
    SELECT j.id, (row_number() OVER (ORDER BY coalesce(j.company, 'unknown'), j.id) - 1)::integer
    FROM serving.jobs j;
    GET DIAGNOSTICS n = ROW_COUNT;
    word_min := greatest(1, ceil(n * word_min_share))::integer;

    INSERT INTO serving.facet_companies (value, lo, size)
    SELECT coalesce(j.company, 'unknown'), min(s.slot), count(*)
    FROM serving.jobs j JOIN serving.facet_slots s ON s.id = j.id
    GROUP BY 1;

    -- The words with a bitmap: counted on a sample of the pages past 50,000 postings (a
    -- full count is another pass over every tsvector; a word the sample misses is still
    -- answered, from its rows).
    CREATE TEMP TABLE facet_words ON COMMIT DROP AS
    SELECT t.word FROM ts_stat(CASE WHEN n > 50000
                                    THEN 'SELECT search_tsv FROM serving.jobs TABLESAMPLE SYSTEM (10) REPEATABLE (0)'
                                    ELSE 'SELECT search_tsv FROM serving.jobs' END) AS t
    WHERE t.ndoc >= word_min * (CASE WHEN n > 50000 THEN 0.1 ELSE 1 END) AND t.word NOT LIKE '¦%'
    ORDER BY t.ndoc DESC, t.word LIMIT max_words;
    ANALYZE facet_words;

    -- Every value's slots in one pass over the postings, grouped by hashing (no sort of
    -- the tens of millions of entries: each list is sorted on its own below).
    CREATE TEMP TABLE facet_lists ON COMMIT DROP AS
    SELECT e.facet, e.value, array_agg(s.slot) AS slots
    FROM serving.jobs j
    JOIN serving.facet_slots s ON s.id = j.id
    CROSS JOIN LATERAL (
        SELECT v.facet, v.value
        FROM serving.facet_values(
                 j.countries, j.regions, j.cities, j.employment_type, j.work_mode, j.job_type, j.source,
                 j.company, j.salary_min, j.salary_max, j.posted_at, j.sort_at, j.seniority,
                 j.enriched_at, j.search_tsv IS NOT NULL, j.experience_min, j.experience_max,
                 j.skills_required, j.skills_all) AS v
        WHERE v.facet <> 'company'
        UNION ALL
        SELECT 'word', w.lexeme
        FROM unnest(tsvector_to_array(j.search_tsv)) AS w(lexeme)
        WHERE w.lexeme IN (SELECT f.word FROM facet_words f)
    ) AS e(facet, value)
    WHERE e.value IS NOT NULL  -- a NULL array element matches no filter
    GROUP BY e.facet, e.value;

    -- The groups that list values keep their `values_kept` largest (and 'unknown'); the
    -- days, months, experience bands and words keep all theirs.
    CREATE TEMP TABLE facet_kept ON COMMIT DROP AS
    SELECT r.facet, r.value, r.size,
           r.facet IN ('salary', 'month', 'day', 'sort_month', 'experience', 'enrichment', 'word',
                       'text', 'all')
           OR r.value = 'unknown' OR r.place <= values_kept AS kept
    FROM (SELECT l.facet, l.value, cardinality(l.slots) AS size,
                 row_number() OVER (PARTITION BY l.facet, l.value = 'unknown'
                                    ORDER BY cardinality(l.slots) DESC, l.value) AS place
          FROM facet_lists l) AS r;

    INSERT INTO serving.facet_bits_tail (facet, largest)
    SELECT k.facet, max(k.size) FROM facet_kept k WHERE NOT k.kept GROUP BY k.facet;

    INSERT INTO serving.facet_bits (facet, value, size, bits)
    SELECT l.facet, l.value, k.size, serving.bits_of_slots(l.slots, n)
    FROM facet_lists l JOIN facet_kept k ON k.facet = l.facet AND k.value = l.value AND k.kept;

    INSERT INTO serving.facet_bits_build (snapshot, dirty_max, slots, word_min_rows, built_at,
                                          build_ms)
    VALUES (pg_current_snapshot(), greatest(dirty_min, ceil(n * dirty_share))::integer, n,
            word_min, now(), (extract(epoch FROM clock_timestamp() - started) * 1000)::integer);
    RETURN n;
END
$$;
