-- The postings written since the build whose snapshot is `built_from`: those whose last
-- writer that snapshot does not see (a transaction still running when the build began,
-- or committed after, is not seen: exact under any interleaving of builds and writes).
-- NULL when there are more than `most`.
CREATE OR REPLACE FUNCTION serving.facet_dirty_ids(built_from pg_snapshot, most integer)
RETURNS bigint[]
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
RETURN (SELECT CASE WHEN count(*) <= most THEN coalesce(array_agg(d.id), '{}') END
        FROM (SELECT f.id FROM serving.facet_dirty f
              WHERE NOT pg_visible_in_snapshot(f.xid, built_from) LIMIT most + 1) AS d);
