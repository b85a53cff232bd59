-- The open postings a sitemap lists: one part of `part_rows` (1 to 50,000, the most a
-- sitemap file may hold) in id order, with when each was last written. Part 0 first;
-- serving.web_sitemap_size says how many parts there are.
CREATE OR REPLACE FUNCTION serving.web_sitemap(part integer, part_rows integer)
RETURNS TABLE (id bigint, modified timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
BEGIN
    IF part_rows IS NULL OR part_rows < 1 OR part_rows > 50000 OR part IS NULL OR part < 0 THEN
        RAISE EXCEPTION 'part must be 0 or more and part_rows 1..50000' USING ERRCODE = '22023';
    END IF;
    RETURN QUERY SELECT j.id, j.synced_at FROM serving.jobs j WHERE j.status = 'active'
        ORDER BY j.id OFFSET part::bigint * part_rows LIMIT part_rows;
END
$$;
