-- The facet bitmaps stay readable while serving.jobs changes: the postings written
-- since a build (serving.facet_dirty, filled by the jobs_facet_* triggers in the
-- writing transaction) are taken out of the bitmaps and counted apart (see
-- serving.web_facet_bits): from small bitmaps of their own (the delta, made in the
-- sync's transaction by serving.refresh_facet_delta), else from their rows. A build
-- records its snapshot, which tells which of those writes it already holds. The
-- statement count it replaces goes.
CREATE TABLE serving.facet_dirty (
    id    bigint PRIMARY KEY,  -- serving.jobs.id, inserted, updated or deleted
    xid   xid8   NOT NULL,     -- the last transaction that wrote it
    delta xid8                 -- facet_delta_build.made_by of the delta that holds it
);

-- The delta: the written postings that exist, after the build's slots (slot n + k),
-- with a bitmap of `rows` bits per value they have (every value, words with a bitmap
-- in the build).
CREATE TABLE serving.facet_delta_build (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    built_at timestamptz NOT NULL,  -- facet_bits_build.built_at of the build it extends
    made_by  xid8        NOT NULL,  -- the transaction that made it
    rows     integer     NOT NULL,  -- written postings that exist: the bitmaps' length
    gone     varbit      NOT NULL   -- the build's slots of the written postings
);
CREATE TABLE serving.facet_delta_slots (
    id   bigint  PRIMARY KEY,
    slot integer NOT NULL  -- the build's slots + its place in the delta
);
CREATE TABLE serving.facet_delta_bits (
    facet text   NOT NULL,
    value text   NOT NULL,
    bits  varbit NOT NULL,
    PRIMARY KEY (facet, value)
);
ALTER TABLE serving.facet_dirty ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_delta_build ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_delta_slots ENABLE ROW LEVEL SECURITY;
ALTER TABLE serving.facet_delta_bits ENABLE ROW LEVEL SECURITY;

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
