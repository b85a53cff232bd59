-- serving schema v13: facet counts from bitmaps.
--
-- A facet count is a pass over every matching posting, and a broad request (a common
-- word: 5-37% of postings; or one broad filter) matches hundreds of thousands: 0.4-1.3 s
-- at 1M rows in PostgreSQL's executor however narrow the rows it reads (a narrow,
-- integer-coded copy grouped by one key still took 125-170 ms a group).
--
-- Counting with bitmaps instead: every published posting gets a slot, every value of a
-- facet a bitmap over the slots (one bit a posting), and a count is AND + bit_count over
-- 1M bits (about 0.3 ms a value, in C). A request's answer is then
--   for each group g: the AND of the text's bitmap and every other group's filter
--   (the OR of its values' bitmaps), then bit_count(that & value) per value of g,
-- which is exactly web_where's logic, disjunctive like web_facet.
--
-- * Company has thousands of values: slots are numbered in company order, so a company
--   is one run of slots and its count is bit_count of a substring (about 7 ms for 5,000).
-- * A group's values past the 256 largest have no bitmap, only the size of the largest
--   of them (facet_bits_tail): their counts cannot be listed, but when the top-N's last
--   count is above that size, no value without a bitmap can be in the top N, and the
--   answer is exact; otherwise that group is left to web_facet. Filtering on such a value
--   reads its rows (it is small: smaller than 256 others).
-- * Words: the lexemes in about 1% of postings or more (counted on a sample of pages past
--   50,000 postings; a common word's postings are the expensive ones) have bitmaps; another word's bitmap is built from its rows (the text
--   index, then each posting's slot), at most `cap` of them. A phrase (<->), a weighted
--   operand, or a prefix with too many postings: not answered here (web_facet counts it).
-- * Posted within N days: a bitmap per day and per month of coalesce(posted_at,
--   first_seen_at); the boundary is now() - N days, so its own day is read row by row.
-- * The enrichment's groups and filters too (experience when the years asked are its
--   bands, as the web app offers them). Salary at least X: not answered here.
--
-- The bitmaps are rebuilt from one snapshot of serving.jobs (serving.build_facet_bits)
-- after a sync that changed it, outside the sync's own transaction. A statement trigger
-- counts every statement that changes serving.jobs (facet_writes); the bitmaps say which
-- count they were built at, and are only read while it is still the current one. Until
-- the rebuild after a change is done, counts are taken the way they were before (exact,
-- slower). So bitmaps never answer for rows they were not built from.

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

ALTER TABLE serving.facet_writes ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_bits_build ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_slots ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_bits ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_bits_tail ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_companies ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON serving.facet_writes, serving.facet_bits_build, serving.facet_slots,
    serving.facet_bits, serving.facet_bits_tail, serving.facet_companies
    FROM PUBLIC, jobharbor_web;

-- A statement that changed no row (the sync's removals when nothing went) changes nothing.
CREATE FUNCTION serving.facet_jobs_written() RETURNS trigger
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
BEGIN
    IF TG_OP <> 'TRUNCATE' THEN
        IF NOT EXISTS (SELECT 1 FROM changed_rows) THEN
            RETURN NULL;
        END IF;
    END IF;
    UPDATE serving.facet_writes SET writes = writes + 1;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION serving.facet_jobs_written() FROM PUBLIC;

CREATE TRIGGER jobs_facet_insert AFTER INSERT ON serving.jobs
    REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.facet_jobs_written();
CREATE TRIGGER jobs_facet_update AFTER UPDATE ON serving.jobs
    REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.facet_jobs_written();
CREATE TRIGGER jobs_facet_delete AFTER DELETE ON serving.jobs
    REFERENCING OLD TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.facet_jobs_written();
CREATE TRIGGER jobs_facet_truncate AFTER TRUNCATE ON serving.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION serving.facet_jobs_written();

-- Slots as a bitmap of n bits, in any order.
CREATE FUNCTION serving.bits_of_slots(slots integer[], n integer) RETURNS varbit
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
    SELECT rpad(coalesce(string_agg(lpad('1', x.gap, '0'), '' ORDER BY x.slot), ''), n, '0')::varbit
    FROM (SELECT s.slot, s.slot - coalesce(lag(s.slot) OVER (ORDER BY s.slot), -1) AS gap
          FROM unnest(slots) AS s(slot)) AS x
$$;
REVOKE ALL ON FUNCTION serving.bits_of_slots(integer[], integer) FROM PUBLIC;

-- The slots of these postings as a bitmap of n bits.
CREATE FUNCTION serving.bits_of_ids(ids bigint[], n integer) RETURNS varbit
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
RETURN serving.bits_of_slots(ARRAY(SELECT s.slot FROM serving.facet_slots s WHERE s.id = ANY (ids)), n);
REVOKE ALL ON FUNCTION serving.bits_of_ids(bigint[], integer) FROM PUBLIC;

-- Whether the bitmaps were built from what serving.jobs holds now.
CREATE FUNCTION serving.facet_bits_current() RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
RETURN EXISTS (SELECT 1 FROM serving.facet_bits_build b, serving.facet_writes w
               WHERE b.writes = w.writes);
REVOKE ALL ON FUNCTION serving.facet_bits_current() FROM PUBLIC;

-- The bitmaps, rebuilt from the transaction's snapshot: it must be one snapshot
-- (REPEATABLE READ), or the bitmaps could mix two states of serving.jobs. Returns the
-- number of slots. The caller serializes builds (serving_sync.facet_bits).
CREATE FUNCTION serving.build_facet_bits(
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
        VALUES ('remote', j.remote),
               ('job_type', coalesce(j.job_type, 'unknown')),
               ('employment_type', coalesce(j.employment_type, 'unknown')),
               ('source', j.source),
               ('salary', CASE WHEN j.salary_min IS NOT NULL OR j.salary_max IS NOT NULL
                               THEN 't' ELSE 'f' END),
               ('month', coalesce(to_char(j.posted_at AT TIME ZONE 'UTC', 'YYYY-MM'), 'unknown')),
               ('day', to_char(coalesce(j.posted_at, j.first_seen_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD')),
               ('sort_month', to_char(coalesce(j.posted_at, j.first_seen_at) AT TIME ZONE 'UTC', 'YYYY-MM')),
               ('seniority', coalesce(j.seniority, 'unknown')),
               ('work_mode', coalesce(j.work_mode, 'unknown')),
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
REVOKE ALL ON FUNCTION serving.build_facet_bits(real, integer, integer) FROM PUBLIC;

-- The postings of one text operand (a lexeme, or a prefix), NULL past `cap` postings
-- read from rows. A prefix is the words of the lexicon under it (a superset of the
-- published words: exact, as in prefix_words), from their bitmaps where they have one.
CREATE FUNCTION serving.operand_bits(lexeme text, prefix boolean, n integer, cap integer)
RETURNS varbit
LANGUAGE plpgsql STABLE
SET search_path = serving, pg_catalog
SET enable_seqscan = off
AS $$
DECLARE
    words text[] := ARRAY[lexeme];
    found varbit;
    rest text[];
    ids bigint[];
BEGIN
    IF prefix THEN
        words := ARRAY(SELECT l.lexeme FROM serving.lexicon l
                       WHERE l.lexeme >= operand_bits.lexeme COLLATE "C"
                         AND starts_with(l.lexeme, operand_bits.lexeme COLLATE "C")
                       ORDER BY l.lexeme LIMIT 5001);
        IF cardinality(words) > 5000 THEN
            RETURN NULL;  -- 'abc':* over thousands of words: the text index does better
        END IF;
    END IF;
    SELECT bit_or(b.bits) INTO found FROM serving.facet_bits b
    WHERE b.facet = 'word' AND b.value = ANY (words);
    rest := ARRAY(SELECT w FROM unnest(words) AS w
                  WHERE NOT EXISTS (SELECT 1 FROM serving.facet_bits b
                                    WHERE b.facet = 'word' AND b.value = w));
    IF cardinality(rest) > 0 THEN
        ids := ARRAY(SELECT j.id FROM serving.jobs j
                     WHERE j.search_tsv @@ (SELECT string_agg(serving.lexeme_query(w)::text, ' | ')
                                            FROM unnest(rest) AS w)::tsquery
                     LIMIT cap + 1);
        IF cardinality(ids) > cap THEN
            RETURN NULL;
        END IF;
        RETURN coalesce(found, serving.bits_of_slots('{}', n)) | serving.bits_of_ids(ids, n);
    END IF;
    RETURN coalesce(found, serving.bits_of_slots('{}', n));
END
$$;
REVOKE ALL ON FUNCTION serving.operand_bits(text, boolean, integer, integer) FROM PUBLIC;

-- The postings a text query matches, as bitmap algebra over its operands: the tsquery's
-- text form is read into reverse Polish notation (! binds tighter than &, & than |, as
-- in tsquery) and evaluated on a stack. NULL: not answerable here (a phrase, a weight,
-- an operand with too many postings to read).
CREATE FUNCTION serving.text_bits(tsq tsquery, n integer, cap integer) RETURNS varbit
LANGUAGE plpgsql STABLE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    token text[];
    output text[] := '{}';
    ops text[] := '{}';
    item text;
    stack varbit[] := '{}';
    operand varbit;
    has_text varbit;
    top integer;
BEGIN
    FOR token IN
        SELECT regexp_matches(tsq::text,
            '(''(?:[^''\\]|''''|\\.)*'')(:[*A-D]+)?|(<[0-9]*-?>)|([!&|()])', 'g')
    LOOP
        IF token[1] IS NOT NULL THEN
            IF token[2] IS NOT NULL AND token[2] <> ':*' THEN
                RETURN NULL;  -- a weight: bitmaps do not know where a word stands
            END IF;
            output := output || ((CASE WHEN token[2] = ':*' THEN 'p' ELSE 'w' END)
                || regexp_replace(substr(token[1], 2, length(token[1]) - 2), '[''\\](.)', '\1', 'g'));
        ELSIF token[3] IS NOT NULL THEN
            RETURN NULL;  -- a phrase: needs the positions
        ELSIF token[4] = '(' THEN
            ops := ops || '('::text;
        ELSIF token[4] = ')' THEN
            WHILE ops[cardinality(ops)] <> '(' LOOP
                output := output || ops[cardinality(ops)];
                ops := ops[1:cardinality(ops) - 1];
            END LOOP;
            ops := ops[1:cardinality(ops) - 1];
        ELSIF token[4] = '!' THEN
            ops := ops || '!'::text;  -- unary, binds to what follows
        ELSE  -- & or |: first apply what binds at least as tightly
            WHILE cardinality(ops) > 0 AND ops[cardinality(ops)] <> '('
                  AND (ops[cardinality(ops)] IN ('!', '&') OR token[4] = '|') LOOP
                output := output || ops[cardinality(ops)];
                ops := ops[1:cardinality(ops) - 1];
            END LOOP;
            ops := ops || token[4];
        END IF;
    END LOOP;
    WHILE cardinality(ops) > 0 LOOP
        output := output || ops[cardinality(ops)];
        ops := ops[1:cardinality(ops) - 1];
    END LOOP;
    SELECT b.bits | b.bits INTO has_text FROM serving.facet_bits b WHERE b.facet = 'text';
    has_text := coalesce(has_text, serving.bits_of_slots('{}', n));
    FOREACH item IN ARRAY output LOOP
        top := cardinality(stack);
        IF item = '!' THEN
            stack[top] := ~stack[top] & has_text;
        ELSIF item = '&' THEN
            stack := stack[1:top - 2] || (stack[top - 1] & stack[top]);
        ELSIF item = '|' THEN
            stack := stack[1:top - 2] || (stack[top - 1] | stack[top]);
        ELSE
            operand := serving.operand_bits(substr(item, 2), left(item, 1) = 'p', n, cap);
            IF operand IS NULL THEN
                RETURN NULL;
            END IF;
            stack := stack || operand;
        END IF;
    END LOOP;
    IF cardinality(stack) <> 1 THEN
        RETURN NULL;  -- not a form this reads: leave it to the query
    END IF;
    RETURN stack[1];
END
$$;
REVOKE ALL ON FUNCTION serving.text_bits(tsquery, integer, integer) FROM PUBLIC;

-- One group's filter (any of its values) as a bitmap: the values' bitmaps, and for a
-- value without one (past the kept values), its rows, read with web_where's condition.
CREATE FUNCTION serving.filter_bits(facet text, vals text[], n integer,
                                    unknown_selects boolean DEFAULT true) RETURNS varbit
LANGUAGE plpgsql STABLE
SET search_path = serving, pg_catalog
SET enable_seqscan = off
AS $$
DECLARE
    found varbit;
    missing text[];
    ids bigint[];
BEGIN
    IF facet = 'company' THEN
        SELECT rpad(coalesce(string_agg(repeat('0', c.lo - c.prev_end) || repeat('1', c.size), ''
                                        ORDER BY c.lo), ''), n, '0')::varbit
        INTO found
        FROM (SELECT f.lo, f.size, coalesce(lag(f.lo + f.size) OVER (ORDER BY f.lo), 0) AS prev_end
              FROM serving.facet_companies f WHERE f.value = ANY (vals)) AS c;
        RETURN found;
    END IF;
    IF NOT unknown_selects THEN
        vals := array_remove(vals, 'unknown');
    END IF;
    SELECT bit_or(b.bits) INTO found
    FROM serving.facet_bits b WHERE b.facet = filter_bits.facet AND b.value = ANY (vals);
    found := coalesce(found, serving.bits_of_slots('{}', n));
    IF NOT EXISTS (SELECT 1 FROM serving.facet_bits_tail t WHERE t.facet = filter_bits.facet) THEN
        RETURN found;  -- every value has its bitmap: one without none has no postings
    END IF;
    missing := ARRAY(SELECT v FROM unnest(vals) AS v
                     WHERE NOT EXISTS (SELECT 1 FROM serving.facet_bits b
                                       WHERE b.facet = filter_bits.facet AND b.value = v));
    IF cardinality(missing) = 0 THEN
        RETURN found;
    END IF;
    -- Their rows by web_where itself, with only this group's filter: the same condition
    -- the counting queries use. (Experience and enrichment keep every value.)
    EXECUTE 'SELECT ARRAY(SELECT j.id FROM serving.jobs j ' || serving.web_where() || ')'
    INTO ids
    USING NULL::tsquery,
          CASE WHEN facet = 'country' THEN missing END,
          CASE WHEN facet = 'region' THEN missing END,
          CASE WHEN facet = 'city' THEN missing END,
          CASE WHEN facet = 'remote' THEN missing END,
          CASE WHEN facet = 'job_type' THEN missing END,
          CASE WHEN facet = 'employment_type' THEN missing END,
          CASE WHEN facet = 'source' THEN missing END,
          NULL::text[], NULL::integer, NULL::boolean, NULL::numeric, NULL::text,
          CASE WHEN facet IN ('skill', 'skill_all') THEN missing END,
          'any'::text, CASE WHEN facet = 'skill_all' THEN 'all' ELSE 'required' END,
          NULL::int4range[], NULL::boolean,
          CASE WHEN facet = 'seniority' THEN missing END,
          CASE WHEN facet = 'work_mode' THEN missing END;
    RETURN found | serving.bits_of_ids(ids, n);
END
$$;
REVOKE ALL ON FUNCTION serving.filter_bits(text, text[], integer, boolean) FROM PUBLIC;

-- Posted (or first seen) within the last `days`: the days left in the boundary's month
-- and the months after it from bitmaps, the boundary's own day row by row.
CREATE FUNCTION serving.posted_within_bits(days integer, n integer) RETURNS varbit
LANGUAGE plpgsql STABLE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    boundary constant timestamptz := now() - make_interval(days => days);
    boundary_day constant date := (boundary AT TIME ZONE 'UTC')::date;
    found varbit;
BEGIN
    SELECT bit_or(b.bits) INTO found
    FROM serving.facet_bits b
    WHERE (b.facet = 'day' AND b.value > to_char(boundary_day, 'YYYY-MM-DD')
           AND b.value LIKE to_char(boundary_day, 'YYYY-MM') || '-%')
       OR (b.facet = 'sort_month' AND b.value > to_char(boundary_day, 'YYYY-MM'));
    found := coalesce(found, serving.bits_of_slots('{}', n));
    RETURN found | serving.bits_of_ids(ARRAY(
        SELECT j.id FROM serving.jobs j
        WHERE coalesce(j.posted_at, j.first_seen_at) >= boundary
          AND coalesce(j.posted_at, j.first_seen_at) < (boundary_day + 1)::timestamp AT TIME ZONE 'UTC'),
        n);
END
$$;
REVOKE ALL ON FUNCTION serving.posted_within_bits(integer, integer) FROM PUBLIC;

-- One group's counts under a mask: the denominator (value NULL), then the values by
-- count (at most top_n, and 'unknown'). No rows when the answer would not be exact: a
-- group with values past its bitmaps whose top N cannot be shown to hold all of them.
CREATE FUNCTION serving.group_bits(facet text, mask varbit, top_n integer)
RETURNS TABLE (value text, count bigint)
LANGUAGE plpgsql STABLE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    tail integer;
    counted text[];
    sizes bigint[];
BEGIN
    IF facet = 'company' THEN
        SELECT array_agg(c.value ORDER BY c.n DESC, c.value), array_agg(c.n ORDER BY c.n DESC, c.value)
        INTO counted, sizes
        FROM (SELECT f.value, bit_count(substring(mask FROM f.lo + 1 FOR f.size)) AS n
              FROM serving.facet_companies f) AS c
        WHERE c.n > 0;
    ELSE
        SELECT array_agg(c.value ORDER BY c.n DESC, c.value), array_agg(c.n ORDER BY c.n DESC, c.value)
        INTO counted, sizes
        FROM (SELECT b.value, bit_count(mask & b.bits) AS n
              FROM serving.facet_bits b WHERE b.facet = group_bits.facet) AS c
        WHERE c.n > 0;
    END IF;
    SELECT t.largest INTO tail FROM serving.facet_bits_tail t WHERE t.facet = group_bits.facet;
    IF top_n IS NOT NULL AND top_n < 1 THEN
        RETURN;
    END IF;
    IF tail IS NOT NULL THEN
        -- The N-th known value must beat every value without a bitmap (by count, strictly:
        -- a tie would be broken by name, which a missing value could win).
        IF top_n IS NULL OR coalesce(cardinality(array_remove(counted, 'unknown')), 0) < top_n
           OR (SELECT s.n FROM unnest(counted, sizes) AS s(v, n) WHERE s.v <> 'unknown'
               ORDER BY s.n DESC, s.v OFFSET top_n - 1 LIMIT 1) <= tail THEN
            RETURN;
        END IF;
    END IF;
    RETURN QUERY SELECT NULL::text, bit_count(mask);
    RETURN QUERY
        SELECT x.v, x.n
        FROM (SELECT s.v, s.n, s.place,
                     row_number() OVER (PARTITION BY s.v = 'unknown' ORDER BY s.place) AS k
              FROM unnest(counted, sizes) WITH ORDINALITY AS s(v, n, place)) AS x
        WHERE x.v = 'unknown' OR top_n IS NULL OR x.k <= top_n
        ORDER BY x.place;
END
$$;
REVOKE ALL ON FUNCTION serving.group_bits(text, varbit, integer) FROM PUBLIC;

-- Disjunctive counts from the bitmaps: same arguments and answer as web_facet /
-- web_facets_all (rows (facet, value, count): 'total', then per answered group its
-- denominator as value NULL and its values), for the groups asked. No rows at all when
-- the bitmaps cannot answer the request (not current, a filter they do not hold, a
-- text they cannot read); a group missing from the answer is to be counted by web_facet.
CREATE FUNCTION serving.web_facet_bits(
    q text, q_prefix boolean,
    p_country text[], p_region text[], p_city text[], p_remote text[], p_job_type text[],
    p_employment_type text[], p_source text[], p_company text[],
    p_posted_within_days integer, p_has_salary boolean, p_salary_min numeric, p_salary_currency text,
    p_skill text[], p_skill_match text, p_skill_scope text, p_experience int4range[],
    p_experience_unknown boolean, p_seniority text[], p_work_mode text[],
    groups text[], top_n integer DEFAULT NULL
) RETURNS TABLE (facet text, value text, count bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
DECLARE
    -- STABLE: every query below reads the snapshot of the statement that called this, so
    -- a build committing meanwhile cannot mix two sets of bitmaps into one answer.
    built serving.facet_bits_build;
    n integer;
    everything varbit;
    common varbit;  -- the text and the filters that are no group's (days, salary)
    tsq tsquery;
    names constant text[] := ARRAY['country', 'region', 'city', 'remote', 'job_type',
                                   'employment_type', 'source', 'company', 'skill',
                                   'experience', 'seniority', 'work_mode'];
    skill_facet constant text := CASE WHEN p_skill_scope = 'all' THEN 'skill_all' ELSE 'skill' END;
    bands text[];
    masks varbit[] := array_fill(NULL::varbit, ARRAY[12]);
    every_filter varbit;
    mask varbit;
    g text;
    v text;
    i integer;
BEGIN
    SELECT * INTO built FROM serving.facet_bits_build;
    IF NOT serving.facet_bits_current() OR built.slots = 0 OR p_salary_min IS NOT NULL THEN
        RETURN;
    END IF;
    IF p_experience IS NOT NULL THEN  -- the years asked must be bands to read as bitmaps
        bands := ARRAY(SELECT b.v FROM (VALUES ('0-1', int4range(0, 1, '[]')),
                                               ('2-4', int4range(2, 4, '[]')),
                                               ('5-9', int4range(5, 9, '[]')),
                                               ('10+', int4range(10, 40, '[]'))) AS b(v, r)
                       WHERE b.r = ANY (p_experience));
        IF cardinality(bands) <> cardinality(p_experience) THEN
            RETURN;
        END IF;
    END IF;
    n := built.slots;
    -- Every mask is a value of its own, not the table's datum: a bitmap stored compressed
    -- would be decompressed again by every use (5,000 company substrings: 230 ms).
    SELECT b.bits | b.bits INTO everything FROM serving.facet_bits b WHERE b.facet = 'all';
    common := everything;
    tsq := serving.web_tsquery(q, q_prefix);
    IF tsq IS NOT NULL THEN
        common := serving.text_bits(tsq, n, greatest(2 * built.word_min_rows, 1000)) & everything;
        IF common IS NULL THEN
            RETURN;
        END IF;
    END IF;
    IF p_posted_within_days IS NOT NULL THEN
        common := common & serving.posted_within_bits(p_posted_within_days, n);
    END IF;
    IF p_has_salary IS NOT NULL THEN
        common := common & serving.filter_bits('salary', ARRAY[CASE WHEN p_has_salary THEN 't' ELSE 'f' END], n);
    END IF;
    masks[1] := CASE WHEN p_country IS NOT NULL THEN serving.filter_bits('country', p_country, n) END;
    masks[2] := CASE WHEN p_region IS NOT NULL THEN serving.filter_bits('region', p_region, n) END;
    masks[3] := CASE WHEN p_city IS NOT NULL THEN serving.filter_bits('city', p_city, n) END;
    masks[4] := CASE WHEN p_remote IS NOT NULL THEN serving.filter_bits('remote', p_remote, n) END;
    masks[5] := CASE WHEN p_job_type IS NOT NULL THEN serving.filter_bits('job_type', p_job_type, n) END;
    masks[6] := CASE WHEN p_employment_type IS NOT NULL
                     THEN serving.filter_bits('employment_type', p_employment_type, n) END;
    masks[7] := CASE WHEN p_source IS NOT NULL THEN serving.filter_bits('source', p_source, n) END;
    masks[8] := CASE WHEN p_company IS NOT NULL THEN serving.filter_bits('company', p_company, n) END;
    IF p_skill IS NOT NULL THEN
        -- A skill key is never 'unknown' (that bitmap is "not extracted"): the filter, as
        -- web_where's, matches the keys themselves.
        IF p_skill_match = 'all' THEN
            masks[9] := everything;
            FOREACH v IN ARRAY p_skill LOOP
                masks[9] := masks[9] & serving.filter_bits(skill_facet, ARRAY[v], n, false);
            END LOOP;
        ELSE
            masks[9] := serving.filter_bits(skill_facet, p_skill, n, false);
        END IF;
    END IF;
    IF p_experience IS NOT NULL OR p_experience_unknown THEN
        masks[10] := serving.filter_bits('experience', coalesce(bands, '{}')
            || CASE WHEN p_experience_unknown THEN ARRAY['unknown'] ELSE '{}'::text[] END, n);
    END IF;
    masks[11] := CASE WHEN p_seniority IS NOT NULL THEN serving.filter_bits('seniority', p_seniority, n) END;
    masks[12] := CASE WHEN p_work_mode IS NOT NULL THEN serving.filter_bits('work_mode', p_work_mode, n) END;
    -- Every filter: the total, and the groups without a filter of their own.
    every_filter := common;
    FOR i IN 1..12 LOOP
        IF masks[i] IS NOT NULL THEN
            every_filter := every_filter & masks[i];
        END IF;
    END LOOP;
    RETURN QUERY SELECT 'total'::text, NULL::text, bit_count(every_filter);
    FOREACH g IN ARRAY groups LOOP
        i := array_position(names, g);
        IF g IN ('month', 'enrichment') OR (i IS NOT NULL AND masks[i] IS NULL) THEN
            mask := every_filter;
        ELSIF i IS NOT NULL THEN  -- disjunctive: every filter but the group's own
            mask := common;
            FOR j IN 1..12 LOOP
                IF j <> i AND masks[j] IS NOT NULL THEN
                    mask := mask & masks[j];
                END IF;
            END LOOP;
        ELSE
            CONTINUE;  -- not a group this counts
        END IF;
        RETURN QUERY
            SELECT g, c.value, c.count
            FROM serving.group_bits(CASE WHEN g = 'skill' THEN skill_facet ELSE g END, mask, top_n) AS c;
    END LOOP;
END
$$;
GRANT EXECUTE ON FUNCTION serving.web_facet_bits TO jobharbor_web;
