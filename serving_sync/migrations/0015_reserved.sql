-- Reserved: version 15 belongs to the employer work (company_source, legal_entity) on
-- another branch. This placeholder only keeps the numbers without a gap on this branch;
-- the merge replaces it with that migration (and 0016 then follows it).
SELECT 1;
