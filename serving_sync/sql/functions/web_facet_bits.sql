-- Facet counts from bitmaps.
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
--   50,000 postings; a common word's postings are the expensive ones) have bitmaps;
--   another word's bitmap is built from its rows (the text index, then each posting's
--   slot), at most `cap` of them. A phrase (<->), a weighted operand, or a prefix with
--   too many postings: not answered here (web_facet counts it).
-- * Posted within N days: a bitmap per day and per month of coalesce(posted_at,
--   first_seen_at); the boundary is now() - N days, so its own day is read row by row.
-- * The enrichment's groups and filters too (experience when the years asked are its
--   bands, as the web app offers them). Salary at least X: not answered here.
--
-- The bitmaps are rebuilt from one snapshot of serving.jobs (serving.build_facet_bits),
-- outside any sync's transaction, and record that snapshot. Every statement that writes
-- serving.jobs records the postings it wrote (serving.facet_dirty, in its own
-- transaction); those whose writer the build's snapshot does not see are "written
-- since" (exact whatever commits while a build reads). Their build slots leave every
-- mask here. What they hold now is counted from the delta the sync makes before its
-- commit (serving.refresh_facet_delta: bitmaps at slots after the build's, read through
-- live_bits), or, when no delta holds every one of them (a writer other than the sync,
-- or a build that committed since), from their rows (dirty_facet_counts, web_where's
-- conditions). Past the build's dirty_max of them, nothing is answered here and the
-- counting queries count. So the bitmaps answer, exactly, at every moment, a sync's
-- writes included from its commit on.
--
-- Disjunctive counts from the bitmaps: same arguments and answer as web_facet /
-- web_facets_all (rows (facet, value, count): 'total', then per answered group its
-- denominator as value NULL and its values), for the groups asked. No rows at all when
-- the bitmaps cannot answer the request (not current, a filter they do not hold, a
-- text they cannot read); a group missing from the answer is to be counted by web_facet.
CREATE OR REPLACE FUNCTION serving.web_facet_bits(
    q text, q_prefix boolean, filters serving.web_filter, groups text[], top_n integer DEFAULT NULL
) RETURNS TABLE (facet text, value text, count bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
DECLARE
    -- STABLE: every query below reads the snapshot of the statement that called this, so
    -- a build committing meanwhile cannot mix two sets of bitmaps into one answer.
    built serving.facet_bits_build;
    delta serving.facet_delta_build;  -- NULL unless it holds every posting in `dirty`
    dirty bigint[];  -- the postings written since the build
    extra_facets text[];  -- their counts from their rows (dirty_facet_counts), without a delta
    extra_values text[];
    extra_counts bigint[];
    n integer;  -- the slots: the build's, and the delta's after them
    everything varbit;
    common varbit;  -- the text and the filters that are no group's (days, salary)
    tsq tsquery;
    names constant text[] := ARRAY['country', 'region', 'city', 'work_mode', 'job_type',
                                   'employment_type', 'source', 'company', 'skill',
                                   'experience', 'seniority'];
    skill_facet constant text := CASE WHEN filters.skill_scope = 'all' THEN 'skill_all' ELSE 'skill' END;
    bands text[];
    masks varbit[] := array_fill(NULL::varbit, ARRAY[11]);
    every_filter varbit;
    mask varbit;
    g text;
    v text;
    i integer;
BEGIN
    SELECT * INTO built FROM serving.facet_bits_build;
    IF NOT FOUND OR built.slots = 0 OR filters.salary_min IS NOT NULL THEN
        RETURN;
    END IF;
    dirty := serving.facet_dirty_ids(built.snapshot, built.dirty_max);
    IF dirty IS NULL THEN
        RETURN;  -- too many written since the build to count apart
    END IF;
    IF cardinality(dirty) > 0 THEN
        -- The delta answers if it was made for this build after the last write: every
        -- written posting carries the delta that holds it (a write clears it).
        SELECT * INTO delta FROM serving.facet_delta_build d WHERE d.built_at = built.built_at;
        IF FOUND AND EXISTS (SELECT 1 FROM serving.facet_dirty d
                             WHERE d.id = ANY (dirty) AND d.delta IS DISTINCT FROM delta.made_by) THEN
            delta := NULL;
        END IF;
    END IF;
    IF filters.experience IS NOT NULL THEN  -- the years asked must be bands to read as bitmaps
        bands := ARRAY(SELECT b.v FROM (VALUES ('0-1', int4range(0, 1, '[]')),
                                               ('2-4', int4range(2, 4, '[]')),
                                               ('5-9', int4range(5, 9, '[]')),
                                               ('10+', int4range(10, 40, '[]'))) AS b(v, r)
                       WHERE b.r = ANY (filters.experience));
        IF cardinality(bands) <> cardinality(filters.experience) THEN
            RETURN;
        END IF;
    END IF;
    n := built.slots + coalesce(delta.rows, 0);
    -- Every mask is a value of its own, not the table's datum: a bitmap stored compressed
    -- would be decompressed again by every use (5,000 company substrings: 230 ms).
    SELECT b.bits | b.bits INTO everything FROM serving.live_bits(n) b WHERE b.facet = 'all';
    -- The written postings' slots in the build leave every mask, all of which start from
    -- this one: what they hold now is in the delta's slots, or counted from their rows.
    IF delta.made_by IS NOT NULL THEN
        everything := everything & ~(delta.gone || repeat('0', delta.rows)::varbit);
    ELSIF cardinality(dirty) > 0 THEN
        everything := everything & ~serving.bits_of_ids(dirty, n);
    END IF;
    common := everything;
    tsq := serving.web_tsquery(q, q_prefix);
    IF tsq IS NOT NULL THEN
        common := serving.text_bits(tsq, n, greatest(2 * built.word_min_rows, 1000)) & everything;
        IF common IS NULL THEN
            RETURN;
        END IF;
    END IF;
    IF filters.posted_within_days IS NOT NULL THEN
        common := common & (serving.posted_within_bits(filters.posted_within_days, n)
                            | CASE WHEN filters.include_undated
                                   THEN serving.filter_bits('age', '{unknown}', n)
                                   ELSE serving.bits_of_slots('{}', n) END);
    END IF;
    IF filters.has_salary IS NOT NULL THEN
        common := common & serving.filter_bits('salary', ARRAY[CASE WHEN filters.has_salary THEN 't' ELSE 'f' END], n);
    END IF;
    masks[1] := CASE WHEN filters.country IS NOT NULL THEN serving.filter_bits('country', filters.country, n) END;
    masks[2] := CASE WHEN filters.region IS NOT NULL THEN serving.filter_bits('region', filters.region, n) END;
    masks[3] := CASE WHEN filters.city IS NOT NULL THEN serving.filter_bits('city', filters.city, n) END;
    masks[4] := CASE WHEN filters.work_mode IS NOT NULL THEN serving.filter_bits('work_mode', filters.work_mode, n) END;
    masks[5] := CASE WHEN filters.job_type IS NOT NULL THEN serving.filter_bits('job_type', filters.job_type, n) END;
    masks[6] := CASE WHEN filters.employment_type IS NOT NULL
                     THEN serving.filter_bits('employment_type', filters.employment_type, n) END;
    masks[7] := CASE WHEN filters.source IS NOT NULL THEN serving.filter_bits('source', filters.source, n) END;
    masks[8] := CASE WHEN filters.company IS NOT NULL THEN serving.filter_bits('company', filters.company, n) END;
    IF filters.skill IS NOT NULL THEN
        -- A skill key is never 'unknown' (that bitmap is "not extracted"): the filter, as
        -- web_where's, matches the keys themselves.
        IF filters.skill_match = 'all' THEN
            masks[9] := everything;
            FOREACH v IN ARRAY filters.skill LOOP
                masks[9] := masks[9] & serving.filter_bits(skill_facet, ARRAY[v], n, false);
            END LOOP;
        ELSE
            masks[9] := serving.filter_bits(skill_facet, filters.skill, n, false);
        END IF;
    END IF;
    IF filters.experience IS NOT NULL OR filters.experience_unknown THEN
        masks[10] := serving.filter_bits('experience', coalesce(bands, '{}')
            || CASE WHEN filters.experience_unknown THEN ARRAY['unknown'] ELSE '{}'::text[] END, n);
    END IF;
    masks[11] := CASE WHEN filters.seniority IS NOT NULL THEN serving.filter_bits('seniority', filters.seniority, n) END;
    -- Every filter: the total, and the groups without a filter of their own.
    every_filter := common;
    FOR i IN 1..11 LOOP
        IF masks[i] IS NOT NULL THEN
            every_filter := every_filter & masks[i];
        END IF;
    END LOOP;
    IF cardinality(dirty) > 0 AND delta.made_by IS NULL THEN
        SELECT array_agg(d.facet), array_agg(d.value), array_agg(d.count)
        INTO extra_facets, extra_values, extra_counts
        FROM serving.dirty_facet_counts(tsq, filters, dirty, ARRAY(
            SELECT a FROM unnest(groups) AS a WHERE a = ANY (names) OR a IN ('month', 'enrichment'))) AS d;
    END IF;
    RETURN QUERY SELECT 'total'::text, NULL::text, bit_count(every_filter) + coalesce(
        (SELECT e.n FROM unnest(extra_facets, extra_counts) AS e(f, n) WHERE e.f = 'total'), 0);
    FOREACH g IN ARRAY groups LOOP
        i := array_position(names, g);
        IF g IN ('month', 'enrichment') OR (i IS NOT NULL AND masks[i] IS NULL) THEN
            mask := every_filter;
        ELSIF i IS NOT NULL THEN  -- disjunctive: every filter but the group's own
            mask := common;
            FOR j IN 1..11 LOOP
                IF j <> i AND masks[j] IS NOT NULL THEN
                    mask := mask & masks[j];
                END IF;
            END LOOP;
        ELSE
            CONTINUE;  -- not a group this counts
        END IF;
        IF delta.made_by IS NOT NULL THEN
            -- The delta's slots are counted like the rows' counts: its values may be
            -- past the build's kept ones (group_bits tells), and its companies are
            -- bitmaps, not runs.
            SELECT array_agg(x.v), array_agg(x.c) INTO extra_values, extra_counts
            FROM (SELECT NULL::text AS v, bit_count(substring(mask FROM built.slots + 1)) AS c
                  UNION ALL
                  SELECT d.value, bit_count(substring(mask FROM built.slots + 1) & d.bits)
                  FROM serving.facet_delta_bits d
                  WHERE d.facet = CASE WHEN g = 'skill' THEN skill_facet ELSE g END) AS x;
            RETURN QUERY
                SELECT g, c.value, c.count
                FROM serving.group_bits(CASE WHEN g = 'skill' THEN skill_facet ELSE g END,
                                        substring(mask FOR built.slots), top_n,
                                        extra_values, extra_counts) AS c;
            CONTINUE;
        END IF;
        RETURN QUERY
            SELECT g, c.value, c.count
            FROM serving.group_bits(
                CASE WHEN g = 'skill' THEN skill_facet ELSE g END, mask, top_n,
                ARRAY(SELECT e.v FROM unnest(extra_facets, extra_values) WITH ORDINALITY AS e(f, v, o)
                      WHERE e.f = g ORDER BY e.o),
                ARRAY(SELECT e.n FROM unnest(extra_facets, extra_counts) WITH ORDINALITY AS e(f, n, o)
                      WHERE e.f = g ORDER BY e.o)) AS c;
    END LOOP;
END
$$;
