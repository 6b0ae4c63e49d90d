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
--
-- Role settings belong to the cluster, and several databases of one cluster
-- may migrate at once: a role that already has a value keeps it (a DBA's
-- choice, or another database's migration), and 'tuple concurrently
-- updated' from a simultaneous writer is retried, not fatal.
do $$
declare
  wanted record;
begin
  for wanted in select * from (values ('anon', '3s'), ('authenticated', '8s')) as v(role, timeout) loop
    for attempt in 1..10 loop
      exit when exists (
        select 1 from pg_db_role_setting s join pg_roles r on r.oid = s.setrole, unnest(s.setconfig) c
         where r.rolname = wanted.role and s.setdatabase = 0 and c like 'statement_timeout=%');
      begin
        execute format('alter role %I set statement_timeout = %L', wanted.role, wanted.timeout);
      exception when internal_error or unique_violation then
        perform pg_sleep(0.02 * attempt);
      end;
    end loop;
  end loop;
end
$$;
