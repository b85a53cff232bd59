-- serving.suggestions built again from the postings now in serving.jobs (a pass over
-- the table). The sync calls it when a full reconcile finds the suggestions empty over
-- published rows: after the migration that added them (0019). Returns the rows written.
CREATE OR REPLACE FUNCTION serving.rebuild_suggestions() RETURNS bigint
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
DECLARE
    written bigint;
BEGIN
    LOCK TABLE serving.jobs IN SHARE MODE;  -- no write may count a value meanwhile
    TRUNCATE serving.suggestions;
    INSERT INTO serving.suggestions (kind, value, key, postings)
    SELECT d.kind, d.value, k.key, d.n
    FROM (SELECT v.kind, v.value, count(*)::integer AS n
          FROM serving.jobs j
          CROSS JOIN LATERAL serving.suggestion_values(
              j.title, j.company, j.skills_all, j.cities, j.regions) AS v
          GROUP BY v.kind, v.value) AS d
    CROSS JOIN LATERAL unnest(serving.suggestion_keys(d.value)) AS k(key)
    WHERE k.key <> '';
    GET DIAGNOSTICS written = ROW_COUNT;
    RETURN written;
END
$$;
