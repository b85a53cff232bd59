-- Every filter lexeme of a posting (see filter_lexeme).
-- PL/pgSQL, not a SQL function over a subquery: this runs once per written row, and the
-- subquery form cost ~0.5 ms a row (a full load of 1M rows took minutes more); this ~20 us.
CREATE OR REPLACE FUNCTION serving.filter_lexemes(
    countries text[], regions text[], cities text[], work_mode text, job_type text,
    employment_type text[], source text, company text, salary_min numeric, salary_max numeric
) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
    found text[] := ARRAY[
        serving.filter_lexeme('wm', work_mode),
        serving.filter_lexeme('jt', coalesce(job_type, 'unknown')),
        serving.filter_lexeme('s', source),
        serving.filter_lexeme('co', coalesce(company, 'unknown')),
        serving.filter_lexeme('h', CASE WHEN salary_min IS NOT NULL OR salary_max IS NOT NULL
                                        THEN 't' ELSE 'f' END)];
    v text;
BEGIN
    -- A NULL list or element (as a NULL value above) matches no filter: no lexeme.
    FOREACH v IN ARRAY CASE WHEN countries = '{}' THEN '{unknown}' ELSE coalesce(countries, '{}') END LOOP
        found := found || serving.filter_lexeme('c', v);
    END LOOP;
    FOREACH v IN ARRAY CASE WHEN regions = '{}' THEN '{unknown}' ELSE coalesce(regions, '{}') END LOOP
        found := found || serving.filter_lexeme('rg', v);
    END LOOP;
    FOREACH v IN ARRAY CASE WHEN cities = '{}' THEN '{unknown}' ELSE coalesce(cities, '{}') END LOOP
        found := found || serving.filter_lexeme('ci', v);
    END LOOP;
    FOREACH v IN ARRAY CASE WHEN employment_type = '{}' THEN '{unknown}'
                            ELSE coalesce(employment_type, '{}') END LOOP
        found := found || serving.filter_lexeme('et', v);
    END LOOP;
    RETURN array_to_tsvector(array_remove(found, NULL));
END
$$;
