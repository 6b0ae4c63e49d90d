-- Supabase-compatible API roles, so that existing policies port unchanged.
--   anon           requests carrying the anonymous key
--   authenticated  requests carrying a user's access token
--   service_role   the secret key: bypasses row-level security
--   authenticator  the login role of the server's request pool. NOINHERIT, so a
--                  connection that forgot to switch role can do nothing at all;
--                  the server switches with set_config('role', ..., true) per
--                  transaction, exactly as PostgREST does. Its password is set
--                  by the server at boot (derived from JWT_SECRET), never here.
--
-- Roles are cluster-wide while migrations run per database, so two databases
-- migrating at once may race to create them: losing that race is fine.
do $$
declare
  spec record;
begin
  for spec in
    select * from (values
      ('anon',          'nologin noinherit'),
      ('authenticated', 'nologin noinherit'),
      ('service_role',  'nologin noinherit bypassrls'),
      ('authenticator', 'login noinherit')
    ) as t(name, attrs)
  loop
    if not exists (select 1 from pg_roles where rolname = spec.name) then
      begin
        execute format('create role %I %s', spec.name, spec.attrs);
      exception when duplicate_object or unique_violation then
        null; -- created concurrently by another database's migration
      end;
    end if;
  end loop;
end
$$;

do $$
begin
  grant anon, authenticated, service_role to authenticator;
exception when unique_violation or internal_error then
  -- 'tuple concurrently updated' when another database grants at the same time
  null;
end
$$;
