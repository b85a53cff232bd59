-- The stemmer of a language (serving.stem_en, _de, _fr: migration 0021), NULL for a
-- language without one: Vietnamese, every other language and an unknown one are
-- searched folded only.
CREATE OR REPLACE FUNCTION serving.stem_config(language text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE language
    WHEN 'en' THEN 'serving.stem_en'::regconfig
    WHEN 'de' THEN 'serving.stem_de'::regconfig
    WHEN 'fr' THEN 'serving.stem_fr'::regconfig
END;
