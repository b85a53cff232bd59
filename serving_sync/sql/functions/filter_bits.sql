-- One group's filter (any of its values) as a bitmap: the values' bitmaps, and for a
-- value without one (past the kept values), its rows, read with web_where's condition.
CREATE OR REPLACE FUNCTION serving.filter_bits(facet text, vals text[], n integer,
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
