-- A filter as a lexeme of search_tsv. The filters of the parse (country, region, city,
-- work mode, job type, employment type, source, company, has salary) are also lexemes of
-- search_tsv, so one GIN scan answers a text query and its filters together: GIN's fast
-- scan skips through the common word's posting list by the rarer filters' lists. A word
-- plus three filters was a BitmapAnd over a 370k-entry bitmap of the word (80 ms just to
-- build) or a walk of the newest-first index rechecking a detoasted tsvector per row
-- (258 ms p95).
-- A filter lexeme is '¦', a group code, '=' and the value verbatim ('¦c=US'); the text
-- parser never puts '¦' in a lexeme (it is not a word character, nor one of a URL, host,
-- e-mail or path), so no word of a posting can match a filter. A value over 200 bytes is
-- written as its md5 after '#' instead of '=' (lexemes are capped at 2 KB; '#' keeps the
-- two forms apart). Values are matched exactly, as the column conditions they stand for:
-- 'unknown' stands for an empty office list or employment type set, a missing job type
-- or company. Only with a text query: then the tsvector is read for every candidate row
-- anyway, and the column conditions are dropped (their parameters set NULL). Without
-- one, the filters stay column conditions (web_where): a scan checks them on the row or
-- on the list index's entries, where a filter lexeme would detoast a tsvector per row (a
-- broad filter's scan took seconds).
CREATE OR REPLACE FUNCTION serving.filter_lexeme(grp text, value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN '¦' || grp || CASE WHEN octet_length(value) <= 200 THEN '=' || value
                          ELSE '#' || md5(value) END;
