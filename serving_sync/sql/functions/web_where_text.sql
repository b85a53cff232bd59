-- web_where() with no filter set (serving.web_unfiltered): the text query alone, the
-- same rows. A statement of web_search is parsed and planned on every call (EXECUTE:
-- each call gets the plan of its own values), and the dozen "filter IS NULL OR ..."
-- conditions that all fold away still cost their parsing and folding: a rare word's
-- page was planned in about 0.9 ms with them and 0.5 ms without (200,000 rows). With a
-- text query the parse's filters have joined it as lexemes by then (web_join_lexemes),
-- so this serves a word with filters of the parse too.
-- A query with an exclusion is checked on each row, as in web_where (see there).
-- $1 the text query (tsquery); a constant.
CREATE OR REPLACE FUNCTION serving.web_where_text() RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ' WHERE ($1 IS NULL OR j.search_tsv @@ $1)
   AND ($1 IS NULL OR NOT serving.text_negates($1) OR ts_match_vq(j.search_tsv, $1))';
