-- The `jobharbor search` command's search (serving_sync.reconcile.search, run as the
-- owner; the web app has its web_* functions): websearch syntax ("quoted phrases", OR,
-- -exclusions), folded like the index. Every match is checked on its row too (as
-- web_where checks a query with an exclusion: the text index can take a posting with
-- the excluded word for one without it while its pending entries move); the rank reads
-- each matching row's text anyway.
CREATE OR REPLACE FUNCTION serving.search_jobs(query text, max_rows integer DEFAULT 20)
RETURNS TABLE (id bigint, title text, company text, location_text text, source text, rank real)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT j.id, j.title, j.company, j.location_text, j.source, ts_rank(j.search_tsv, q) AS rank
    FROM serving.jobs AS j, websearch_to_tsquery('simple', serving.fold(query)) AS q
    WHERE j.search_tsv @@ q AND ts_match_vq(j.search_tsv, q)
    ORDER BY rank DESC, j.posted_at DESC NULLS LAST, j.id
    LIMIT least(greatest(max_rows, 1), 100)
$$;
