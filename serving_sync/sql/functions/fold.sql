-- Lowercase without diacritics: the same NFC + table as serving_sync.text.fold in Python
-- ({{FOLD_FROM}} and {{FOLD_TO}} are that table, filled in when this file is applied, so
-- a change of the table re-applies it). Queries are folded with it, and so is the text
-- of a row written by anyone but the sync (serving.jobs_search_tsv).
-- ASCII-only text (byte length = character length) folds to lower() alone: translate()
-- over the ~700-character table costs ~7 ms per 1,200 characters (measured).
CREATE OR REPLACE FUNCTION serving.fold(value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN CASE WHEN octet_length(value) = length(value) THEN lower(value)
            ELSE lower(translate(normalize(value, NFC), {{FOLD_FROM}}, {{FOLD_TO}})) END;
