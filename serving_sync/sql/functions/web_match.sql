-- The text query and every lexeme filter, AND-ed (NULL: no condition at all).
CREATE OR REPLACE FUNCTION serving.web_match(
    tsq tsquery, p_country text[], p_region text[], p_city text[], p_remote text[],
    p_job_type text[], p_employment_type text[], p_source text[], p_company text[],
    p_has_salary boolean
) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN serving.tsquery_and(tsq, serving.tsquery_and(serving.filter_query('c', p_country),
    serving.tsquery_and(serving.filter_query('rg', p_region),
    serving.tsquery_and(serving.filter_query('ci', p_city),
    serving.tsquery_and(serving.filter_query('rm', p_remote),
    serving.tsquery_and(serving.filter_query('jt', p_job_type),
    serving.tsquery_and(serving.filter_query('et', p_employment_type),
    serving.tsquery_and(serving.filter_query('s', p_source),
    serving.tsquery_and(serving.filter_query('co', p_company),
    serving.lexeme_query(serving.filter_lexeme(
        'h', CASE p_has_salary WHEN true THEN 't' WHEN false THEN 'f' END)))))))))));
