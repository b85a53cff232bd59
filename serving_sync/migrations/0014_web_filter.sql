-- The filters of a web request as one value: every web query function (web_search,
-- web_facet, web_facets_all, web_facet_bits) takes them as one argument, and the
-- dynamic SQL they run (serving.web_where) reads them as one parameter, `($2).country`.
-- A list or value left NULL is no condition; skill_match (any | all) and skill_scope
-- (required | all) say how `skill` matches, salary_currency the currency salary_min is
-- in; experience is ranges of years (inclusive), experience_unknown true or NULL.
-- A type, not a file under serving_sync/sql/: functions take it as an argument, so it
-- cannot be dropped and created again as a file is. A new filter is a new migration
-- (ALTER TYPE ... ADD ATTRIBUTE) with the functions that read it.
CREATE TYPE serving.web_filter AS (
    country            text[],
    region             text[],
    city               text[],
    remote             text[],
    job_type           text[],
    employment_type    text[],
    source             text[],
    company            text[],
    posted_within_days integer,
    has_salary         boolean,
    salary_min         numeric,
    salary_currency    text,
    skill              text[],
    skill_match        text,
    skill_scope        text,
    experience         int4range[],
    experience_unknown boolean,
    seniority          text[],
    work_mode          text[]
);

-- The web functions took every filter as an argument of its own before: those
-- signatures go (each file creates its function again, taking the type, after the
-- migrations). Not CASCADE: nothing else may be bound to them.
DO $$
DECLARE
    old regprocedure;
BEGIN
    FOR old IN
        SELECT p.oid::regprocedure FROM pg_proc p
        WHERE p.pronamespace = 'serving'::regnamespace
          AND p.proname IN ('web_search', 'web_facet', 'web_facets_all', 'web_facet_bits',
                            'web_match')
    LOOP
        EXECUTE format('DROP FUNCTION %s', old);
    END LOOP;
END
$$;
