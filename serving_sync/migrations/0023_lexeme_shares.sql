-- The text column's commonest lexemes with their share of postings, as the last ANALYZE
-- of serving.jobs found them (its most common elements), copied by the sync
-- (serving.refresh_lexeme_shares). web_search tells a rare text query from a common one
-- by looking its lexemes up here (serving.text_rows_bound): asking the planner instead
-- (planning the query with the tsquery as a constant) reads and searches the column's
-- whole statistics array, 10,000 elements at its statistics target, on every call. The
-- empty lexeme, which no tsvector holds, keeps the smallest share listed: every lexeme
-- not listed is at most that common.
CREATE TABLE serving.lexeme_shares (
    lexeme text COLLATE "C" PRIMARY KEY,  -- byte order, as serving.lexicon
    share  real NOT NULL
);
ALTER TABLE serving.lexeme_shares ENABLE ROW LEVEL SECURITY;
