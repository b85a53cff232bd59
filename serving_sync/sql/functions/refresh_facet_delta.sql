-- The delta (see facet_delta_build): the postings written since the build, as bitmaps of
-- their own after the build's slots, made again from all of them. The sync calls it
-- after its writes, in its transaction: readers see its postings and their bitmaps at
-- the same commit. Serialized (a lock until the caller's commit), and every statement
-- reads the latest commits (READ COMMITTED): a delta made after another's commit holds
-- that one's postings too. None when there is no build or the postings are past its
-- dirty_max (the counting queries answer then). Returns the postings in it.
CREATE OR REPLACE FUNCTION serving.refresh_facet_delta() RETURNS integer
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
SET work_mem = '64MB'
AS $$
DECLARE
    built serving.facet_bits_build;
    dirty bigint[];
    n integer;
    m integer;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('jobharbor:serving:facet_delta', 0));
    DELETE FROM serving.facet_delta_build;
    DELETE FROM serving.facet_delta_bits;
    DELETE FROM serving.facet_delta_slots;
    SELECT * INTO built FROM serving.facet_bits_build;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    dirty := serving.facet_dirty_ids(built.snapshot, built.dirty_max);
    IF dirty IS NULL THEN
        RETURN 0;
    END IF;
    n := built.slots;
    INSERT INTO serving.facet_delta_slots (id, slot)
    SELECT j.id, n + (row_number() OVER (ORDER BY j.id) - 1)::integer
    FROM serving.jobs j WHERE j.id = ANY (dirty);
    GET DIAGNOSTICS m = ROW_COUNT;
    INSERT INTO serving.facet_delta_bits (facet, value, bits)
    SELECT e.facet, e.value, serving.bits_of_slots(array_agg(s.slot - n), m)
    FROM serving.jobs j
    JOIN serving.facet_delta_slots s ON s.id = j.id
    CROSS JOIN LATERAL (
        SELECT v.facet, v.value
        FROM serving.facet_values(
                 j.countries, j.regions, j.cities, j.employment_type, j.work_mode, j.job_type, j.source,
                 j.company, j.salary_min, j.salary_max, j.posted_at, j.sort_at, j.seniority,
                 j.enriched_at, j.search_tsv IS NOT NULL, j.experience_min, j.experience_max,
                 j.skills_required, j.skills_all) AS v
        UNION ALL  -- the words the build has bitmaps for; the others are read from rows
        SELECT 'word', w.lexeme
        FROM unnest(tsvector_to_array(j.search_tsv)) AS w(lexeme)
        WHERE w.lexeme IN (SELECT b.value FROM serving.facet_bits b WHERE b.facet = 'word')
    ) AS e(facet, value)
    WHERE e.value IS NOT NULL
    GROUP BY e.facet, e.value;
    INSERT INTO serving.facet_delta_build (built_at, made_by, rows, gone)
    VALUES (built.built_at, pg_current_xact_id(), m, serving.bits_of_slots(ARRAY(
        SELECT s.slot FROM serving.facet_slots s WHERE s.id = ANY (dirty)), n));
    UPDATE serving.facet_dirty d SET delta = pg_current_xact_id()
    WHERE d.id = ANY (dirty) AND d.delta IS DISTINCT FROM pg_current_xact_id();
    RETURN m;
END
$$;
