-- The web role reads through the web_* functions, nothing else: no table, no sequence,
-- no other function, nothing outside `serving`. The web_* functions are SECURITY DEFINER
-- with a fixed search_path: they read as the owner, only what they return. The list is
-- the whole of what it may call: everything else is revoked first, so a name taken off
-- the list loses its grant.
REVOKE ALL ON SCHEMA public FROM jobharbor_web;
GRANT USAGE ON SCHEMA serving TO jobharbor_web;
REVOKE ALL ON ALL TABLES IN SCHEMA serving FROM jobharbor_web;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA serving FROM jobharbor_web;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA serving FROM jobharbor_web;
GRANT EXECUTE ON FUNCTION
    serving.web_search, serving.web_facet, serving.web_facets_all, serving.web_facet_bits,
    serving.web_job, serving.web_closed_job, serving.web_last_sync, serving.web_freshness,
    serving.web_spelling, serving.web_page_details, serving.web_page, serving.web_suggest,
    serving.web_sitemap, serving.web_sitemap_size, serving.web_sitemap_companies,
    serving.web_sitemap_companies_size,
    serving.web_company, serving.web_company_listed, serving.web_similar, serving.fold
TO jobharbor_web;
