-- The bitmaps, rebuilt from the transaction's snapshot: it must be one snapshot
-- (REPEATABLE READ), or the bitmaps could mix two states of serving.jobs. Returns the
-- number of slots. The caller serializes builds (serving_sync.facet_bits).
CREATE OR REPLACE FUNCTION serving.build_facet_bits(
    word_min_share real DEFAULT 0.01,
    max_words integer DEFAULT 2000,
    values_kept integer DEFAULT 256
) RETURNS integer
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
SET work_mem = '256MB'
AS $$
DECLARE
    started constant timestamptz := clock_timestamp();
    built_writes bigint;
    n integer;
    word_min integer;
BEGIN
    IF current_setting('transaction_isolation') NOT IN ('repeatable read', 'serializable') THEN
        RAISE EXCEPTION 'serving.build_facet_bits needs one snapshot: call it in a REPEATABLE READ transaction'
            USING ERRCODE = 'invalid_transaction_state';
    END IF;
    SELECT w.writes INTO built_writes FROM serving.facet_writes w;
    -- DELETE, not TRUNCATE: readers keep reading the old bitmaps (and, seeing they are
    -- not current, count the slower way) instead of waiting for this transaction.
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
        SELECT 'country', unnest(CASE WHEN j.countries = '{}' THEN '{unknown}' ELSE j.countries END)
        UNION ALL
        SELECT 'region', unnest(CASE WHEN j.regions = '{}' THEN '{unknown}' ELSE j.regions END)
        UNION ALL
        SELECT 'city', unnest(CASE WHEN j.cities = '{}' THEN '{unknown}' ELSE j.cities END)
        UNION ALL
        SELECT 'employment_type', unnest(CASE WHEN j.employment_type = '{}' THEN '{unknown}'
                                              ELSE j.employment_type END)
        UNION ALL
        VALUES ('work_mode', j.work_mode),
               ('job_type', coalesce(j.job_type, 'unknown')),
               ('source', j.source),
               ('salary', CASE WHEN j.salary_min IS NOT NULL OR j.salary_max IS NOT NULL
                               THEN 't' ELSE 'f' END),
               ('month', coalesce(to_char(j.posted_at AT TIME ZONE 'UTC', 'YYYY-MM'), 'unknown')),
               -- sort_at's days and months (none for -infinity: to_char is NULL there),
               ('day', to_char(j.sort_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')),
               ('sort_month', to_char(j.sort_at AT TIME ZONE 'UTC', 'YYYY-MM')),
               -- and the postings of unknown age, which include_undated adds to a window.
               ('age', CASE WHEN j.sort_at = '-infinity' THEN 'unknown' END),
               ('seniority', coalesce(j.seniority, 'unknown')),
               ('enrichment', CASE WHEN j.enriched_at IS NULL THEN 'unknown' ELSE 'extracted' END),
               ('text', CASE WHEN j.search_tsv IS NOT NULL THEN '' END),
               ('all', '')
        UNION ALL
        SELECT 'experience', unnest(serving.experience_bands(j.experience_min, j.experience_max))
        UNION ALL
        SELECT 'skill', unnest(CASE WHEN j.enriched_at IS NULL THEN '{unknown}' ELSE j.skills_required END)
        UNION ALL
        SELECT 'skill_all', unnest(CASE WHEN j.enriched_at IS NULL THEN '{unknown}'
                                        ELSE ARRAY(SELECT DISTINCT unnest(j.skills_all)) END)
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

    INSERT INTO serving.facet_bits_build (writes, slots, word_min_rows, built_at, build_ms)
    VALUES (built_writes, n, word_min, now(),
            (extract(epoch FROM clock_timestamp() - started) * 1000)::integer);
    RETURN n;
END
$$;
