-- The published companies a company page's slug names: a slug is the company's key
-- (serving.suggestion_keys: folded words, one space apart) with hyphens for spaces, so
-- one index lookup finds it. Keys keep 60 characters: names that share those come
-- together, and the caller keeps the one whose whole slug matches. Most postings first.
CREATE OR REPLACE FUNCTION serving.web_company(slug text)
RETURNS TABLE (company text, postings integer)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
    SELECT s.value, s.postings
    FROM serving.suggestions s,
         (SELECT left(replace(slug, '-', ' '), 60) COLLATE "C" AS key) k
    WHERE length(slug) BETWEEN 1 AND 200
      AND s.kind = 'company' AND left(s.key, 5) = left(k.key, 5) AND s.key = k.key
    ORDER BY s.postings DESC, s.value
    LIMIT 20
$$;
