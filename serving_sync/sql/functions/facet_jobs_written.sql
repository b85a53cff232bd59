-- Records the postings a statement on serving.jobs wrote (serving.facet_dirty: their
-- ids, with the writing transaction), in that statement's own transaction: a reader sees
-- them exactly when it sees the rows, and web_facet_bits counts them apart from the
-- bitmaps until a build that sees them (see build_facet_bits): from the delta if one
-- made after this write holds them (refresh_facet_delta; the write marks them not
-- held), else from their rows. An
-- update records the old ids too (an id that changed leaves a slot behind). A TRUNCATE
-- names no rows: it drops the build, and the counting queries answer until the next.
CREATE OR REPLACE FUNCTION serving.facet_jobs_written() RETURNS trigger
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM serving.facet_bits_build;
        DELETE FROM serving.facet_dirty;
        DELETE FROM serving.facet_delta_build;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO serving.facet_dirty (id, xid)
        SELECT c.id, pg_current_xact_id() FROM changed_rows c
        UNION
        SELECT o.id, pg_current_xact_id() FROM old_rows o
        ON CONFLICT (id) DO UPDATE SET xid = excluded.xid, delta = NULL;
    ELSE
        INSERT INTO serving.facet_dirty (id, xid)
        SELECT c.id, pg_current_xact_id() FROM changed_rows c
        ON CONFLICT (id) DO UPDATE SET xid = excluded.xid, delta = NULL;
    END IF;
    RETURN NULL;
END
$$;
