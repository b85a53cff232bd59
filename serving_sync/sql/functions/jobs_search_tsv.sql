-- The sync writes search_tsv_of(...) || stem_lexemes(...) || filter_lexemes(...) itself;
-- anyone else writing serving.jobs (a hand edit, a test) gets all three from the trigger,
-- and a change of a filter column alone swaps that row's filter lexemes.
CREATE OR REPLACE FUNCTION serving.jobs_search_tsv() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (TG_OP = 'INSERT' AND NEW.search_tsv IS NULL)
       OR (TG_OP = 'UPDATE' AND NEW.search_tsv IS NOT DISTINCT FROM OLD.search_tsv
           AND (NEW.title, NEW.company, NEW.location_text, NEW.description, NEW.language)
               IS DISTINCT FROM (OLD.title, OLD.company, OLD.location_text, OLD.description,
                                 OLD.language)) THEN
        NEW.search_tsv := serving.search_tsv_of(
            serving.fold(NEW.title), serving.fold(NEW.company), serving.fold(NEW.location_text),
            serving.fold(left(NEW.description, 20000)))
            || serving.stem_lexemes(NEW.language, serving.fold(NEW.title),
                   serving.fold(left(NEW.description, 20000)))
            || serving.filter_lexemes(NEW.countries, NEW.regions, NEW.cities, NEW.work_mode,
                   NEW.job_type, NEW.employment_type, NEW.source, NEW.company, NEW.salary_min,
                   NEW.salary_max);
    ELSIF TG_OP = 'UPDATE' AND NEW.search_tsv IS NOT DISTINCT FROM OLD.search_tsv
          AND (NEW.countries, NEW.regions, NEW.cities, NEW.work_mode, NEW.job_type,
               NEW.employment_type, NEW.source, NEW.salary_min, NEW.salary_max)
              IS DISTINCT FROM (OLD.countries, OLD.regions, OLD.cities, OLD.work_mode, OLD.job_type,
               OLD.employment_type, OLD.source, OLD.salary_min, OLD.salary_max) THEN
        NEW.search_tsv := ts_delete(NEW.search_tsv, tsvector_to_array(serving.filter_lexemes(
                OLD.countries, OLD.regions, OLD.cities, OLD.work_mode, OLD.job_type,
                OLD.employment_type, OLD.source, OLD.company, OLD.salary_min, OLD.salary_max)))
            || serving.filter_lexemes(NEW.countries, NEW.regions, NEW.cities, NEW.work_mode,
                   NEW.job_type, NEW.employment_type, NEW.source, NEW.company, NEW.salary_min,
                   NEW.salary_max);
    END IF;
    RETURN NEW;
END
$$;
