-- One group's filter (any of its values) as a bitmap of n bits (the delta's past the
-- build's: see live_bits): the values' bitmaps, and for a value without one in the
-- build (past the kept values), its rows, read with web_where's condition.
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
    one_group serving.web_filter;  -- this group's filter, no other
    slots constant integer := (SELECT b.slots FROM serving.facet_bits_build b);
BEGIN
    IF facet = 'company' THEN  -- runs of slots in the build, bitmaps in the delta
        SELECT rpad(coalesce(string_agg(repeat('0', c.lo - c.prev_end) || repeat('1', c.size), ''
                                        ORDER BY c.lo), ''), slots, '0')::varbit
        INTO found
        FROM (SELECT f.lo, f.size, coalesce(lag(f.lo + f.size) OVER (ORDER BY f.lo), 0) AS prev_end
              FROM serving.facet_companies f WHERE f.value = ANY (vals)) AS c;
        IF n > slots THEN
            found := found || coalesce((SELECT bit_or(d.bits) FROM serving.facet_delta_bits d
                                        WHERE d.facet = 'company' AND d.value = ANY (vals)),
                                       repeat('0', n - slots)::varbit);
        END IF;
        RETURN found;
    END IF;
    IF NOT unknown_selects THEN
        vals := array_remove(vals, 'unknown');
    END IF;
    SELECT bit_or(b.bits) INTO found
    FROM serving.live_bits(n) b WHERE b.facet = filter_bits.facet AND b.value = ANY (vals);
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
    one_group.skill_match := 'any';
    one_group.skill_scope := CASE WHEN facet = 'skill_all' THEN 'all' ELSE 'required' END;
    CASE facet
        WHEN 'country' THEN one_group.country := missing;
        WHEN 'region' THEN one_group.region := missing;
        WHEN 'city' THEN one_group.city := missing;
        WHEN 'job_type' THEN one_group.job_type := missing;
        WHEN 'employment_type' THEN one_group.employment_type := missing;
        WHEN 'source' THEN one_group.source := missing;
        WHEN 'skill', 'skill_all' THEN one_group.skill := missing;
        WHEN 'seniority' THEN one_group.seniority := missing;
        WHEN 'work_mode' THEN one_group.work_mode := missing;
    END CASE;
    EXECUTE 'SELECT ARRAY(SELECT j.id FROM serving.jobs j ' || serving.web_where() || ')'
    INTO ids
    USING NULL::tsquery, one_group;
    RETURN found | serving.bits_of_ids(ids, n);
END
$$;
