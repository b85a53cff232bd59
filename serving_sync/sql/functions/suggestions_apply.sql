-- Keeps serving.suggestions exact after each statement that changes serving.jobs: the
-- values of the rows written count up, those of the rows replaced or removed count
-- down (an UPDATE that leaves a value as it was changes nothing), and a value whose
-- count reaches zero goes. In key order, so two writers take their row locks in the
-- same order. A TRUNCATE of the postings empties it.
CREATE OR REPLACE FUNCTION serving.suggestions_apply() RETURNS trigger
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
DECLARE
    changed text;
    delta text;
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        TRUNCATE serving.suggestions;
        RETURN NULL;
    END IF;
    -- The transition tables this event has (an INSERT has no old rows, a DELETE no new).
    changed := CASE TG_OP
        WHEN 'INSERT' THEN 'SELECT 1 AS sign, r.* FROM new_rows r'
        WHEN 'DELETE' THEN 'SELECT -1 AS sign, r.* FROM old_rows r'
        ELSE 'SELECT 1 AS sign, r.* FROM new_rows r UNION ALL SELECT -1, r.* FROM old_rows r'
    END;
    delta := 'SELECT v.kind, v.value, sum(r.sign)::integer AS n FROM (' || changed || ') AS r
              CROSS JOIN LATERAL serving.suggestion_values(
                  r.title, r.company, r.skills_all, r.cities, r.regions) AS v
              GROUP BY v.kind, v.value HAVING sum(r.sign) <> 0';
    EXECUTE 'INSERT INTO serving.suggestions AS s (kind, value, key, postings)
             SELECT d.kind, d.value, k.key, d.n
             FROM (' || delta || ') AS d
             CROSS JOIN LATERAL unnest(serving.suggestion_keys(d.value)) AS k(key)
             WHERE k.key <> ''''
             ORDER BY 1, 2, 3
             ON CONFLICT (kind, value, key) DO UPDATE SET postings = s.postings + excluded.postings';
    EXECUTE 'DELETE FROM serving.suggestions s USING (' || delta || ') AS d
             WHERE d.n < 0 AND s.kind = d.kind AND s.value = d.value AND s.postings <= 0';
    RETURN NULL;
END
$$;
