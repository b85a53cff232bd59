-- The text query and every lexeme filter, AND-ed (NULL: no condition at all).
CREATE OR REPLACE FUNCTION serving.web_match(tsq tsquery, filters serving.web_filter)
RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN serving.tsquery_and(tsq, serving.tsquery_and(serving.filter_query('c', filters.country),
    serving.tsquery_and(serving.filter_query('rg', filters.region),
    serving.tsquery_and(serving.filter_query('ci', filters.city),
    serving.tsquery_and(serving.filter_query('wm', filters.work_mode),
    serving.tsquery_and(serving.filter_query('jt', filters.job_type),
    serving.tsquery_and(serving.filter_query('et', filters.employment_type),
    serving.tsquery_and(serving.filter_query('s', filters.source),
    serving.tsquery_and(serving.filter_query('co', filters.company),
    serving.lexeme_query(serving.filter_lexeme(
        'h', CASE filters.has_salary WHEN true THEN 't' WHEN false THEN 'f' END)))))))))));
