-- How long one statement of an API role may run (containment item 3).
--
-- Supabase's values, as role settings, so a DBA changes them the way
-- PostgREST users do:
--   alter role authenticated set statement_timeout = '15s';
--   notify pgrst, 'reload schema';
-- The server reads these settings at start and on that reload and applies
-- them to every transaction it opens as the role (SET LOCAL ROLE does not
-- apply role settings by itself). A role without one (service_role by
-- default) gets DB_STATEMENT_TIMEOUT; statements run inside background jobs
-- get JOB_STATEMENT_TIMEOUT, whatever role they act as.
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';
