-- The counts of web_facet_bits's groups over some postings (the ones written since the
-- build: serving.facet_dirty), read from their rows: 'total' (value NULL), then per
-- group its denominator (value NULL) and its values' counts; no row for a count of 0. Disjunctive as web_facet:
-- a group is counted under every filter but its own. The conditions are web_where's
-- own, once per filter context (every filter, and each group's with its own lifted), in
-- one pass over the rows; a posting's values are facet_values's, as the build reads
-- them. Only postings that still exist are counted (a deleted one is in no bitmap count
-- either: web_facet_bits takes its slot out).
CREATE OR REPLACE FUNCTION serving.dirty_facet_counts(
    tsq tsquery, filters serving.web_filter, ids bigint[], groups text[]
) RETURNS TABLE (facet text, value text, count bigint)
LANGUAGE plpgsql STABLE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    contexts serving.web_filter[] := ARRAY[filters];
    lifted serving.web_filter;
    names text[] := ARRAY['total'];
    facets text[] := ARRAY['all'];
    places integer[] := ARRAY[1];
    place integer;
    g text;
    conditions text;
BEGIN
    IF cardinality(ids) = 0 THEN
        RETURN;
    END IF;
    FOREACH g IN ARRAY groups LOOP
        lifted := filters;
        CASE g  -- the group's own filter is lifted, as in web_facet
            WHEN 'country' THEN lifted.country := NULL;
            WHEN 'region' THEN lifted.region := NULL;
            WHEN 'city' THEN lifted.city := NULL;
            WHEN 'work_mode' THEN lifted.work_mode := NULL;
            WHEN 'job_type' THEN lifted.job_type := NULL;
            WHEN 'employment_type' THEN lifted.employment_type := NULL;
            WHEN 'source' THEN lifted.source := NULL;
            WHEN 'company' THEN lifted.company := NULL;
            WHEN 'skill' THEN lifted.skill := NULL;
            WHEN 'experience' THEN lifted.experience := NULL; lifted.experience_unknown := NULL;
            WHEN 'seniority' THEN lifted.seniority := NULL;
            ELSE NULL;  -- month, enrichment: no filter of their own
        END CASE;
        place := 1;
        IF lifted IS DISTINCT FROM filters THEN
            contexts := contexts || lifted;
            place := cardinality(contexts);
        END IF;
        names := names || ARRAY[g, g];
        facets := facets || ARRAY['all', CASE WHEN g = 'skill' AND filters.skill_scope = 'all'
                                              THEN 'skill_all' ELSE g END];
        places := places || ARRAY[place, place];
    END LOOP;
    SELECT string_agg('(' || replace(regexp_replace(serving.web_where(), '^\s*WHERE', ''),
                                     '($2)', format('($2[%s])', k)) || ')', ', ' ORDER BY k)
    INTO conditions
    FROM generate_series(1, cardinality(contexts)) AS k;
    RETURN QUERY EXECUTE
        'SELECT a.name, CASE WHEN v.facet = ''all'' THEN NULL ELSE v.value END, count(*)
         FROM serving.jobs j
         CROSS JOIN LATERAL (SELECT ARRAY[' || conditions || '] AS hit) AS h
         CROSS JOIN LATERAL serving.facet_values(
             j.countries, j.regions, j.cities, j.employment_type, j.work_mode, j.job_type, j.source,
             j.company, j.salary_min, j.salary_max, j.posted_at, j.sort_at, j.seniority,
             j.enriched_at, j.search_tsv IS NOT NULL, j.experience_min, j.experience_max,
             j.skills_required, j.skills_all) AS v
         JOIN (SELECT DISTINCT * FROM unnest($3, $4, $5)) AS a(name, facet, place)
           ON a.facet = v.facet
         WHERE j.id = ANY ($6) AND h.hit[a.place] AND v.value IS NOT NULL
         GROUP BY 1, 2'
    USING tsq, contexts, names, facets, places, ids;
END
$$;
