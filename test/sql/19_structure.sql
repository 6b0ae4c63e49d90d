-- The house rules of sql/CONVENTIONS.md, checked over the whole database so a
-- new migration cannot quietly break them: row-level security on every table
-- of the platform's schemas, search_path pinned on every security definer
-- function, and no function the anon role can call unless it is listed here.
begin;
select plan(3);

select is(
  array(select format('%I.%I', n.nspname, c.relname) from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where c.relkind in ('r', 'p') and n.nspname in ('auth', 'storage', 'realtime', 'ai', 'platform') and not c.relrowsecurity
         order by 1),
  '{}'::text[],
  'every table in auth, storage, realtime, ai and platform has row-level security');

select is(
  array(select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where p.prosecdef and n.nspname not in ('pg_catalog', 'information_schema', 'tests', 'graphile_worker')
           and not exists (select 1 from unnest(coalesce(p.proconfig, '{}')) s where s like 'search_path=%')
         order by 1),
  '{}'::text[],
  'every security definer function pins its search_path');

-- What anon may call: the Supabase helpers policies use, the storage and
-- realtime entry points the API runs as the caller (their SQL decides what the
-- caller may do), and the helpers those evaluate under the caller's role.
select is(
  array(select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname in ('auth', 'storage', 'realtime', 'ai', 'platform')
           and has_schema_privilege('anon', n.oid, 'usage') and has_function_privilege('anon', p.oid, 'execute')
         order by 1),
  array[
    'auth.email()', 'auth.jwt()', 'auth.raise_error(integer,text,text)', 'auth.role()', 'auth.uid()',
    'realtime.broadcast_changes(text,text,text,text,text,record,record,text)', 'realtime.channel_access(text)',
    'realtime.column_names(regclass)', 'realtime.hoist_context_calls(text)',
    'realtime.old_image(regclass,text,jsonb,jsonb)', 'realtime.only_columns(jsonb,jsonb,boolean)',
    'realtime.policy_expr(regclass,name,text)', 'realtime.presence_entry(text,text,jsonb,text)',
    'realtime.published_tables()', 'realtime.send(jsonb,text,text,boolean)', 'realtime.subscriber_role(jsonb)',
    'realtime.topic()', 'realtime.valid_role(text)',
    'storage.begin_resumable(uuid,text,text,boolean,bigint,text,text,jsonb,bigint,integer)', 'storage.bucket_is_empty(text)',
    'storage.bucket_rules(text)', 'storage.can_upload(text,text,boolean)', 'storage.cancel_resumable(uuid)', 'storage.content_may_be(text,text)',
    'storage.copy_object(text,text,text,text,text,boolean)', 'storage.create_bucket(text,text,boolean,bigint,text[],boolean)',
    'storage.delete_bucket(text)', 'storage.empty_bucket(text)', 'storage.extension(text)', 'storage.filename(text)',
    'storage.finish_resumable(uuid,jsonb,text)', 'storage.foldername(text)',
    'storage.list_objects(text,text,integer,integer,text,text,text)', 'storage.list_objects_v2(text,text,integer,text,boolean,text,text)', 'storage.mime_allowed(text[],text)',
    'storage.move_object(text,text,text,text)', 'storage.put_object(text,text,text,jsonb,boolean,jsonb,text)',
    'storage.put_signed_object(uuid,timestamp with time zone,text,text,text,jsonb,boolean,jsonb,text)',
    'storage.remove_objects(text,text[])', 'storage.require_bucket(text)', 'storage.require_resumable(uuid)',
    'storage.spend_upload_token(uuid,timestamp with time zone)', 'storage.spend_upload_token_once(uuid,timestamp with time zone)', 'storage.update_bucket(text,jsonb)',
    'storage.valid_object_name(text)'
  ]::text[],
  'anon can call only the listed functions');

select * from finish();
rollback;
