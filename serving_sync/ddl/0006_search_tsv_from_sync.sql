-- serving schema v6: the sync supplies search_tsv, folded in Python.
--
-- serving.fold() is translate() over a ~700-character table: ~25 ms for a 3 KB
-- description with diacritics (measured on the embedded cluster), which made the
-- generated tsvector the whole cost of every sync write. The sync now strips the
-- diacritics itself (the same NFC + table as serving.fold, serving_sync.text) and
-- lowercases in SQL, so the tsvector is the one the generated column made, at the
-- cost of to_tsvector alone. Anyone else writing serving.jobs (a hand insert, a test)
-- gets it computed by the trigger, exactly as before.

-- The tsvector of already-unaccented text (lower() is applied here, as fold does).
CREATE FUNCTION serving.search_tsv_of(title text, company text, location_text text, description text)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN setweight(to_tsvector('simple', lower(coalesce(title, ''))), 'A')
    || setweight(to_tsvector('simple', lower(coalesce(company, ''))), 'B')
    || setweight(to_tsvector('simple', lower(coalesce(location_text, ''))), 'B')
    || setweight(to_tsvector('simple', lower(coalesce(left(description, 20000), ''))), 'D');

ALTER TABLE serving.jobs ALTER COLUMN search_tsv DROP EXPRESSION;

CREATE FUNCTION serving.jobs_search_tsv() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (TG_OP = 'INSERT' AND NEW.search_tsv IS NULL)
       OR (TG_OP = 'UPDATE' AND NEW.search_tsv IS NOT DISTINCT FROM OLD.search_tsv
           AND (NEW.title, NEW.company, NEW.location_text, NEW.description)
               IS DISTINCT FROM (OLD.title, OLD.company, OLD.location_text, OLD.description)) THEN
        NEW.search_tsv := serving.search_tsv_of(
            serving.fold(NEW.title), serving.fold(NEW.company), serving.fold(NEW.location_text),
            serving.fold(left(NEW.description, 20000)));
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER jobs_search_tsv BEFORE INSERT OR UPDATE ON serving.jobs
    FOR EACH ROW EXECUTE FUNCTION serving.jobs_search_tsv();
