-- Placeholder so that 0010 applies on this branch (versions must be 1..N without
-- gaps). Version 9 belongs to another branch: when that branch's 0009 is merged,
-- this file is deleted.
SELECT 1;
