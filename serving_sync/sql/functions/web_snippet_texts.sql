-- The text a result's snippet is cut from (serving_sync.highlight): the start of each
-- listed posting's description, as much as a snippet looks at, for at most one page.
-- PL/pgSQL for its cached plan.
CREATE OR REPLACE FUNCTION serving.web_snippet_texts(ids bigint[])
RETURNS TABLE (id bigint, description text)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT j.id, left(j.description, 8000)  -- highlight.SNIPPET_SCAN_CHARS
    FROM serving.jobs j
    WHERE j.id = ANY (ids[1:51]);  -- search.MAX_LIMIT + 1
END
$$;
