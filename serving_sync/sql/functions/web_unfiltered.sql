-- No filter narrows the postings (salary_currency alone is no filter: it is salary_min's
-- currency; skill_match and skill_scope say how `skill` matches).
CREATE OR REPLACE FUNCTION serving.web_unfiltered(filters serving.web_filter) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN num_nonnulls(filters.country, filters.region, filters.city,
                    filters.job_type, filters.employment_type, filters.source,
                    filters.company, filters.posted_within_days, filters.has_salary,
                    filters.salary_min, filters.skill, filters.experience,
                    filters.experience_unknown, filters.seniority, filters.work_mode) = 0;
