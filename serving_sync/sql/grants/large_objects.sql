-- Large objects are a write that default_transaction_read_only does not stop once a
-- session turns it off: no large objects for the web role.
-- (Only an owner of these catalog functions can revoke them; elsewhere PostgreSQL warns
-- and changes nothing, and the managed host's own defaults apply.)
REVOKE EXECUTE ON FUNCTION pg_catalog.lo_create(oid), pg_catalog.lo_creat(integer),
    pg_catalog.lo_from_bytea(oid, bytea), pg_catalog.lo_import(text),
    pg_catalog.lo_import(text, oid) FROM PUBLIC;
