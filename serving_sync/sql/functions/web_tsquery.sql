-- The query that matches: the typed query with its prefix written as its words. Not the
-- web role's to call (it would list the lexicon, words of postings gone included): the
-- web_* functions call it as the owner.
CREATE OR REPLACE FUNCTION serving.web_tsquery(query text, last_is_prefix boolean)
RETURNS tsquery
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
RETURN serving.prefix_as_words(serving.typed_tsquery(query, last_is_prefix));
