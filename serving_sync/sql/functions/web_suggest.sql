-- Typeahead: per kind, the `per_kind` (at most 50) commonest values with a key starting
-- with `prefix` (a key as serving.suggestion_keys writes it; 2 to 60 characters, else
-- nothing), commonest first. Each prefix length reads the index of its own first
-- characters in count order (2; 3 or 4; 5 or more), so no prefix sorts its matches. A
-- value found under two of its keys comes twice (the caller keeps one).
CREATE OR REPLACE FUNCTION serving.web_suggest(prefix text, per_kind integer)
RETURNS TABLE (kind text, value text, postings integer)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
#variable_conflict use_column
DECLARE
    wanted text;
    n integer := least(greatest(per_kind, 1), 50);
    p text := prefix COLLATE "C";
BEGIN
    IF p IS NULL OR length(p) < 2 OR length(p) > 60 THEN
        RETURN;
    END IF;
    FOREACH wanted IN ARRAY ARRAY['title', 'company', 'skill', 'city', 'region'] LOOP
        IF length(p) = 2 THEN
            RETURN QUERY SELECT s.kind, s.value, s.postings FROM serving.suggestions s
                WHERE s.kind = wanted AND left(s.key, 2) = p COLLATE "C"
                ORDER BY s.postings DESC LIMIT n;
        ELSIF length(p) < 5 THEN
            RETURN QUERY SELECT s.kind, s.value, s.postings FROM serving.suggestions s
                WHERE s.kind = wanted AND left(s.key, 3) = left(p, 3) COLLATE "C"
                  AND starts_with(s.key, p COLLATE "C")
                ORDER BY s.postings DESC LIMIT n;
        ELSE
            RETURN QUERY SELECT s.kind, s.value, s.postings FROM serving.suggestions s
                WHERE s.kind = wanted AND left(s.key, 5) = left(p, 5) COLLATE "C"
                  AND starts_with(s.key, p COLLATE "C")
                ORDER BY s.postings DESC LIMIT n;
        END IF;
    END LOOP;
END
$$;
