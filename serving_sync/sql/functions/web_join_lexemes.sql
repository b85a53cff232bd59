-- With a text query, the lexeme filters join it (one GIN scan, see filter_lexeme) and
-- leave the filters that stay column conditions; without one, both as they were (the
-- filters all stay column conditions).
CREATE OR REPLACE FUNCTION serving.web_join_lexemes(
    INOUT tsq tsquery, INOUT filters serving.web_filter
)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
    IF tsq IS NULL THEN
        RETURN;
    END IF;
    tsq := serving.web_match(tsq, filters);
    -- The filters web_match made lexemes of.
    filters.country := NULL;
    filters.region := NULL;
    filters.city := NULL;
    filters.work_mode := NULL;
    filters.job_type := NULL;
    filters.employment_type := NULL;
    filters.source := NULL;
    filters.company := NULL;
    filters.has_salary := NULL;
END
$$;
