-- The tsvector of already-unaccented text (lower() is applied here, as fold does).
--
-- The sync supplies search_tsv itself, folded in Python: serving.fold() is translate()
-- over a ~700-character table, ~25 ms for a 3 KB description with diacritics (measured on
-- the embedded cluster), which made a tsvector computed by the database the whole cost
-- of every sync write. The sync strips the diacritics itself (the same NFC + table as
-- serving.fold, serving_sync.text) and lowercases here, so the tsvector is the one
-- serving.fold would give, at the cost of to_tsvector alone. Anyone else writing
-- serving.jobs (a hand insert, a test) gets it computed by serving.jobs_search_tsv.
CREATE OR REPLACE FUNCTION serving.search_tsv_of(title text, company text, location_text text, description text)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN setweight(to_tsvector('simple', lower(coalesce(title, ''))), 'A')
    || setweight(to_tsvector('simple', lower(coalesce(company, ''))), 'B')
    || setweight(to_tsvector('simple', lower(coalesce(location_text, ''))), 'B')
    || setweight(to_tsvector('simple', lower(coalesce(left(description, 20000), ''))), 'D');
