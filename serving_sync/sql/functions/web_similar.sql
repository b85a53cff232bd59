-- "Similar jobs" on a job page: open postings (seen on their board at the last check)
-- like this one. First the same job elsewhere (its duplicate group: another board or
-- source, a repost), then the postings sharing the most words of its title and skills,
-- newest first among equals. The candidates are bounded (the 100 newest sharing a title
-- word, the 100 newest sharing a skill), so a common title costs two short index walks,
-- not a pass over every match. Title words are its folded words of 3 letters or more that
-- are no stop word of a stemmed language ("and", "für", "des"). At most 20 rows.
-- PL/pgSQL for its cached plan.
CREATE OR REPLACE FUNCTION serving.web_similar(job_id bigint, max_rows integer)
RETURNS TABLE (id bigint, title text, company text, location_text text, source text,
               sort_at timestamptz, same_job boolean, shared_words integer,
               shared_skills integer)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
#variable_conflict use_column
DECLARE
    me serving.jobs%ROWTYPE;
    words text[];
    any_word tsquery;
BEGIN
    SELECT * INTO me FROM serving.jobs j WHERE j.id = job_id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    words := serving.title_words(me.title);
    any_word := (SELECT string_agg(serving.lexeme_query(w)::text || ':A', ' | ')
                 FROM unnest(words) AS w)::tsquery;
    RETURN QUERY
    WITH candidates AS (
        (SELECT d.id FROM serving.jobs d
         WHERE d.duplicate_group = me.duplicate_group AND d.id <> me.id
         ORDER BY d.id LIMIT 20)
        UNION
        (SELECT c.id FROM serving.jobs c
         WHERE any_word IS NOT NULL AND c.search_tsv @@ any_word AND c.id <> me.id
           AND c.status = 'active'
         ORDER BY c.sort_at DESC LIMIT 100)
        UNION
        (SELECT c.id FROM serving.jobs c
         WHERE c.skills_all && me.skills_all AND c.id <> me.id AND c.status = 'active'
         ORDER BY c.sort_at DESC LIMIT 100)
    ), scored AS (
        SELECT j.id, j.title, j.company, j.location_text, j.source, j.sort_at,
               coalesce(j.duplicate_group = me.duplicate_group, false) AS same_job,
               -- `words` holds no stop word, so the other title's plain lexemes will do.
               cardinality(ARRAY(SELECT unnest(words) INTERSECT SELECT unnest(tsvector_to_array(
                   to_tsvector('simple', serving.fold(j.title)))))) AS shared_words,
               cardinality(ARRAY(SELECT unnest(me.skills_all)
                                 INTERSECT SELECT unnest(j.skills_all))) AS shared_skills
        FROM candidates c JOIN serving.jobs j ON j.id = c.id
        WHERE j.status = 'active'
    )
    SELECT s.id, s.title, s.company, s.location_text, s.source, s.sort_at, s.same_job,
           s.shared_words, s.shared_skills
    FROM scored s
    WHERE s.same_job OR s.shared_words + s.shared_skills > 0
    ORDER BY s.same_job DESC, s.shared_words + s.shared_skills DESC, s.sort_at DESC, s.id
    LIMIT least(greatest(max_rows, 0), 20);
END
$$;
