-- How many entries of the list index web_search may walk (see web_search): the session
-- setting `jobharbor.list_walk_rows`, default 150,000; 0 turns the walk off.
CREATE OR REPLACE FUNCTION serving.list_walk_rows() RETURNS integer
LANGUAGE sql STABLE PARALLEL SAFE
RETURN CASE WHEN current_setting('jobharbor.list_walk_rows', true) ~ '^\s*\d{1,7}\s*$'
            THEN least(trim(current_setting('jobharbor.list_walk_rows', true))::integer, 1000000)
            ELSE 150000 END;
