-- Typeahead (serving.web_suggest): every title, company, skill, city and region the
-- published postings name, with how many postings name it, under keys that a typed
-- prefix finds: the folded value from the start of each of its first four words
-- ("backend developer python", "developer python", "python"), so "pyth" suggests
-- "Backend Developer (Python)". One row per key, each carrying the value's count, so
-- an index in count order answers a prefix without sorting its matches.
--
-- Kept exact by statement triggers on serving.jobs (serving.suggestions_apply): each
-- statement adds the values of the rows it wrote and takes away those of the rows it
-- replaced or removed, inside the writer's transaction, so the counts are current the
-- moment a sync commits, and a value no posting names any more goes with its last one.
CREATE TABLE serving.suggestions (
    kind     text NOT NULL CHECK (kind IN ('title', 'company', 'skill', 'city', 'region')),
    value    text NOT NULL,
    key      text COLLATE "C" NOT NULL,
    postings integer NOT NULL,  -- > 0 between statements: the trigger deletes what reaches 0
    PRIMARY KEY (kind, value, key)
);
-- Two folded characters, three or four, five or more: the first characters of the key
-- name the run of keys, in count order, that a prefix of that length reads from.
CREATE INDEX suggestions_2_idx ON serving.suggestions (kind, left(key, 2), postings DESC);
CREATE INDEX suggestions_3_idx ON serving.suggestions (kind, left(key, 3), postings DESC);
CREATE INDEX suggestions_5_idx ON serving.suggestions (kind, left(key, 5), postings DESC);
ALTER TABLE serving.suggestions ENABLE ROW LEVEL SECURITY;
