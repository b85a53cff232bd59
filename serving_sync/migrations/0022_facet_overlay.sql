-- The facet bitmaps stay readable while serving.jobs changes: the postings written
-- since a build (serving.facet_dirty, filled by the jobs_facet_* triggers in the
-- writing transaction) are taken out of the bitmaps and counted from their rows (see
-- serving.web_facet_bits). A build records its snapshot, which tells which of those
-- writes it already holds. The statement count it replaces goes.
CREATE TABLE serving.facet_dirty (
    id  bigint PRIMARY KEY,  -- serving.jobs.id, inserted, updated or deleted
    xid xid8   NOT NULL      -- the last transaction that wrote it
);
ALTER TABLE serving.facet_dirty ENABLE ROW LEVEL SECURITY;

-- Its old signature and its old reading of facet_writes (a SQL-standard body depends
-- on the table): the files create them again.
DROP FUNCTION IF EXISTS serving.facet_bits_current();
DROP FUNCTION IF EXISTS serving.group_bits(text, varbit, integer);
DROP FUNCTION IF EXISTS serving.build_facet_bits(real, integer, integer);
DROP TABLE serving.facet_writes;

-- A build without a snapshot cannot tell which writes it holds: the next sync builds.
DELETE FROM serving.facet_bits_build;
ALTER TABLE serving.facet_bits_build
    DROP COLUMN writes,
    ADD COLUMN snapshot pg_snapshot NOT NULL,  -- the snapshot it was built from
    ADD COLUMN dirty_max integer NOT NULL;     -- postings written since, past which it is not read
