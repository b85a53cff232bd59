-- The keys a typed prefix finds a suggestion by (serving.suggestions): the folded value,
-- its words split at ASCII punctuation and spaces, from the start of each of its first
-- four words, at most 60 characters each. serving_sync.typeahead.prefix_key reads a
-- typed prefix the same way.
CREATE OR REPLACE FUNCTION serving.suggestion_keys(value text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
    SELECT coalesce(array_agg(left(array_to_string(w.words[i:], ' '), 60) ORDER BY i), '{}')
    FROM (SELECT regexp_split_to_array(
                     btrim(regexp_replace(serving.fold(value), '[\x01-\x2f\x3a-\x60\x7b-\x7f]+', ' ', 'g')),
                     ' ') AS words) AS w,
         generate_series(1, least(4, cardinality(w.words))) AS i
    WHERE w.words <> '{""}'
$$;
