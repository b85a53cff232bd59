-- One page of the ungrouped list in one call (serving_sync.search.search): the rows of
-- web_search, one more than the page (the caller's "is there a next page"), in its
-- order, each of the page's own rows (all but that extra one) with what
-- web_page_details gives for it; the spelling columns NULL.
--
-- With `spell_words` (the query's correctable words, folded; NULL when none could be
-- corrected or the query is to be read verbatim), the words are looked up first, as
-- web_spelling's first call does: when every one of them is known (the common case)
-- the page follows in the same call; when one is not, the call answers web_spelling's
-- rows alone (in the spelling columns, every other column NULL) and lists nothing, and
-- the caller decides the correction and asks again with the query it settled on and
-- no words to check. A page of known words is one round trip instead of three
-- (spelling, list, details); each was a client round trip and a call of its own.
-- PL/pgSQL for its cached plans.
CREATE OR REPLACE FUNCTION serving.web_page(
    q text, q_prefix boolean, filters serving.web_filter,
    sort text, after_at timestamptz, after_rank real, after_id bigint,
    page_rows integer, candidates integer, with_text boolean,
    spell_words text[], spell_prefixes text[]
) RETURNS TABLE (
    id bigint, title text, company text, location_text text, countries text[], cities text[],
    job_type text, employment_type text[], posted_at timestamptz,
    posted_precision text, first_seen_at timestamptz, sort_at timestamptz, age_known boolean,
    salary_min numeric, salary_max numeric, salary_currency text, salary_period text,
    salary_year_min numeric, salary_year_max numeric, salary_year_basis text,
    source text, openings_12m integer, experience_min integer, experience_max integer,
    seniority text, work_mode text, skills_required text[], skills_preferred text[],
    enriched boolean, rank real,
    duplicate_group bigint, other_ids bigint[], other_sources text[], description text,
    unknown_word text, candidate text, share real
)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
#variable_conflict use_column
BEGIN
    IF spell_words IS NOT NULL THEN
        RETURN QUERY
        SELECT NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text[], NULL::text[],
               NULL::text, NULL::text[], NULL::timestamptz,
               NULL::text, NULL::timestamptz, NULL::timestamptz, NULL::boolean,
               NULL::numeric, NULL::numeric, NULL::text, NULL::text,
               NULL::numeric, NULL::numeric, NULL::text,
               NULL::text, NULL::integer, NULL::integer, NULL::integer,
               NULL::text, NULL::text, NULL::text[], NULL::text[],
               NULL::boolean, NULL::real,
               NULL::bigint, NULL::bigint[], NULL::text[], NULL::text,
               s.word, s.candidate, s.share
        FROM serving.web_spelling(spell_words, spell_prefixes, NULL) AS s;
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    RETURN QUERY
    WITH listed AS MATERIALIZED (
        SELECT *
        FROM serving.web_search(web_page.q, web_page.q_prefix, web_page.filters,
                                web_page.sort, web_page.after_at, web_page.after_rank,
                                web_page.after_id, web_page.page_rows, web_page.candidates)
             WITH ORDINALITY AS l
    ), details AS (
        SELECT *
        FROM serving.web_page_details(
            ARRAY(SELECT l.id FROM listed l WHERE l.ordinality < web_page.page_rows),
            web_page.with_text) AS d
    )
    SELECT l.id, l.title, l.company, l.location_text, l.countries, l.cities,
           l.job_type, l.employment_type, l.posted_at,
           l.posted_precision, l.first_seen_at, l.sort_at, l.age_known,
           l.salary_min, l.salary_max, l.salary_currency, l.salary_period,
           l.salary_year_min, l.salary_year_max, l.salary_year_basis,
           l.source, l.openings_12m, l.experience_min, l.experience_max,
           l.seniority, l.work_mode, l.skills_required, l.skills_preferred,
           l.enriched, l.rank,
           d.duplicate_group, d.other_ids, d.other_sources, d.description,
           NULL::text, NULL::text, NULL::real
    FROM listed l LEFT JOIN details d ON d.id = l.id
    ORDER BY l.ordinality;
END
$$;
