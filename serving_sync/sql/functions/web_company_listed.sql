-- A list grouped by company (serving_sync.search, group=company) lists at most 3
-- postings of a company: its first 3 matches in the list's order. A page after a cursor
-- needs, per company it meets, how many of those the pages before it listed: this
-- counts them, at most 3 each, for at most 51 companies (one web_search page of rows).
--
-- The list is web_search's. Newest first: a company's first matches are web_search's
-- page with the company as its filter (its list walk or GIN scan, 3 rows), those before
-- the cursor counted. By relevance: web_search ranks the newest `candidates` matches of
-- the whole list, so a company's part of it is its matches at or after the last of them
-- (found once, as web_search's own candidates are), ranked by the same ts_rank; those
-- ranked before the cursor are counted, at most 3. Bounded by the candidates. The cursor
-- is the last posting the page before walked: it counts as before.
CREATE OR REPLACE FUNCTION serving.web_company_listed(
    q text, q_prefix boolean, filters serving.web_filter,
    sort text, after_at timestamptz, after_rank real, after_id bigint,
    companies text[], candidates integer DEFAULT 1000
) RETURNS TABLE (company text, listed integer)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
SET work_mem = '32MB'  -- as web_search: a common word's bitmap must stay exact
AS $$
DECLARE
    rank_q tsquery := serving.typed_tsquery(q, q_prefix);  -- ranks, as web_search's
    text_q tsquery := serving.prefix_as_words(rank_q);  -- matches, as web_search's
    by_rank boolean := sort = 'relevance' AND text_q IS NOT NULL;
    one serving.web_filter := filters;
    name text;
    last_at timestamptz;
    last_id bigint;
BEGIN
    IF after_id IS NULL OR companies IS NULL THEN
        RETURN;  -- no cursor: no page before this one
    END IF;
    candidates := least(greatest(coalesce(candidates, 1000), 1), 5000);
    IF by_rank THEN
        EXECUTE 'SELECT j.sort_at, j.id FROM serving.jobs j' || serving.web_where() ||
                ' ORDER BY j.sort_at DESC, j.id DESC OFFSET $3 LIMIT 1'
        INTO last_at, last_id USING text_q, filters, candidates - 1;
    END IF;
    FOREACH name IN ARRAY companies[1:51] LOOP  -- search.MAX_LIMIT + 1
        one.company := ARRAY[name];
        IF by_rank THEN
            RETURN QUERY EXECUTE
                'SELECT $8, count(*)::integer FROM (
                     SELECT 1 FROM serving.jobs j' || serving.web_where() ||
                '      AND ($3::timestamptz IS NULL OR (j.sort_at, j.id) >= ($3, $4))
                       AND (ts_rank(j.search_tsv, $5), j.id) >= ($6, $7)
                     LIMIT 3) x'
            USING text_q, one, last_at, last_id, rank_q, after_rank, after_id, name;
        ELSE
            RETURN QUERY
            SELECT name, count(*)::integer
            FROM serving.web_search(q, q_prefix, one, 'newest', NULL, NULL, NULL, 3,
                                    candidates) s
            WHERE (coalesce(s.sort_at, '-infinity'), s.id)
                  >= (coalesce(after_at, '-infinity'), after_id);
        END IF;
    END LOOP;
END
$$;
