-- serving schema v3: repost counts and duplicate groups, so the web app can show
-- "posted 4 times this year" and fold duplicates of one role across boards.
ALTER TABLE serving.jobs
    ADD COLUMN openings_12m    integer NOT NULL DEFAULT 1,  -- distinct openings of this role first seen in 365 days
    ADD COLUMN duplicate_group bigint;                       -- same role, near-identical text, other board/source
CREATE INDEX jobs_duplicate_group_idx ON serving.jobs (duplicate_group) WHERE duplicate_group IS NOT NULL;
