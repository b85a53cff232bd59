-- What a page of results shows beyond the list's columns, for at most one page of ids:
-- where else each posting is listed (the other postings of its duplicate group: the
-- same role with near-identical text on another board or source, at most 20, their
-- ids and sources), and, with `with_text`, the start of its description that a
-- snippet is cut from (serving_sync.highlight; as much as a snippet looks at).
-- PL/pgSQL for its cached plan.
CREATE OR REPLACE FUNCTION serving.web_page_details(ids bigint[], with_text boolean)
RETURNS TABLE (id bigint, duplicate_group bigint, other_ids bigint[], other_sources text[],
               description text)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT j.id, j.duplicate_group, o.member_ids, o.member_sources,
           CASE WHEN with_text THEN left(j.description, 8000) END  -- highlight.SNIPPET_SCAN_CHARS
    FROM serving.jobs j
    LEFT JOIN LATERAL (
        SELECT array_agg(m.id ORDER BY m.id) AS member_ids,
               array_agg(m.source ORDER BY m.id) AS member_sources
        FROM (SELECT d.id, d.source FROM serving.jobs d
              WHERE d.duplicate_group = j.duplicate_group AND d.id <> j.id
              ORDER BY d.id LIMIT 20) AS m
    ) AS o ON j.duplicate_group IS NOT NULL
    WHERE j.id = ANY (web_page_details.ids[1:51]);  -- search.MAX_LIMIT + 1
END
$$;
