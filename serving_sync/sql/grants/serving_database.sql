-- The serving database itself. PostgreSQL grants TEMPORARY and CONNECT on every database
-- to PUBLIC. With TEMPORARY the web role could write (temporary tables) once a session
-- turns default_transaction_read_only off, so TEMPORARY is PUBLIC's no more, nor the web
-- role's. The role applying these files is the sync's (the same serving URL), which
-- stages its rows in temporary tables (serving_sync/stage.py) and need not be a
-- superuser: it is granted TEMPORARY by name.
-- CONNECT is the web role's by its own grant, not through PUBLIC. PUBLIC keeps CONNECT:
-- this database may also hold the authoritative schemas, or be a host's database with
-- roles of its own, and CONNECT here gives PUBLIC nothing in serving (grants/public.sql).
-- A copy of the database (CREATE DATABASE ... TEMPLATE, a restore into a new one) does
-- not carry these privileges: serving_sync.schema applies this file again when PUBLIC
-- has TEMPORARY here and this role can take it. (Only the database's owner, a member of
-- it or a superuser can change them; elsewhere PostgreSQL warns and changes nothing.)
DO $$
BEGIN
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC, jobharbor_web',
                   current_database());
    EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO CURRENT_USER', current_database());
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO jobharbor_web', current_database());
END
$$;
