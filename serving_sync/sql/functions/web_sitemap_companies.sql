-- The published companies a sitemap lists (their pages are /companies/{slug}): one part
-- of `part_rows` (1 to 50,000) in name order, part 0 first. A company is published
-- while a serving row names it (serving.suggestions counts them).
CREATE OR REPLACE FUNCTION serving.web_sitemap_companies(part integer, part_rows integer)
RETURNS TABLE (company text)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
BEGIN
    IF part_rows IS NULL OR part_rows < 1 OR part_rows > 50000 OR part IS NULL OR part < 0 THEN
        RAISE EXCEPTION 'part must be 0 or more and part_rows 1..50000' USING ERRCODE = '22023';
    END IF;
    RETURN QUERY SELECT DISTINCT s.value FROM serving.suggestions s
        WHERE s.kind = 'company' AND s.postings > 0
        ORDER BY 1 OFFSET part::bigint * part_rows LIMIT part_rows;
END
$$;
