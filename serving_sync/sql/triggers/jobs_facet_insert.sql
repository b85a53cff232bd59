-- Every statement that writes serving.jobs records the postings it wrote, so the facet
-- bitmaps count them from their rows until they are built again (see
-- serving.facet_jobs_written); one trigger per event, as a trigger with transition
-- tables takes one.
CREATE OR REPLACE TRIGGER jobs_facet_insert AFTER INSERT ON serving.jobs
    REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.facet_jobs_written();
