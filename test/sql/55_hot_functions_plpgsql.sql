-- The functions every run, refresh, upload and download calls are
-- plpgsql, planned once per connection (a `language sql` function with a
-- SET clause is planned again on every call: sql/0083 to 0086), and answer
-- as they did: a call's price by the longest priced prefix or 0, a run's
-- totals or zeros, a webhook's execution row or none, queued -> running
-- once; a user's JSON, an audit entry, tokens; a bucket's rules or none,
-- allowed types, valid names; realtime's per-subscriber and per-socket
-- functions (their answers: test/sql/16 to 18).
begin;
select plan(39);

select function_lang_is('ai', 'usage_totals', array['uuid', 'text'], 'plpgsql', 'ai.usage_totals is plpgsql');
select function_lang_is('ai', 'call_cost', array['text', 'text', 'integer', 'integer'], 'plpgsql', 'ai.call_cost is plpgsql');
select function_lang_is('ai', 'record_webhook_execution', array['uuid', 'jsonb', 'integer'], 'plpgsql', 'ai.record_webhook_execution is plpgsql');
select function_lang_is('ai', 'start_execution', array['uuid', 'uuid'], 'plpgsql', 'ai.start_execution is plpgsql');
select function_lang_is('auth', 'user_json', array['auth.users'], 'plpgsql', 'auth.user_json is plpgsql');
select function_lang_is('auth', 'audit', array['text', 'uuid', 'text', 'jsonb', 'text'], 'plpgsql', 'auth.audit is plpgsql');
select function_lang_is('auth', 'hash_token', array['text'], 'plpgsql', 'auth.hash_token is plpgsql');
select function_lang_is('auth', 'new_token', array[]::text[], 'plpgsql', 'auth.new_token is plpgsql');
select function_lang_is('storage', 'bucket_rules', array['text'], 'plpgsql', 'storage.bucket_rules is plpgsql');
select function_lang_is('storage', 'mime_allowed', array['text[]', 'text'], 'plpgsql', 'storage.mime_allowed is plpgsql');
select function_lang_is('storage', 'valid_object_name', array['text'], 'plpgsql', 'storage.valid_object_name is plpgsql');
select function_lang_is('realtime', 'become', array['name', 'jsonb'], 'plpgsql', 'realtime.become is plpgsql');
select function_lang_is('realtime', 'release', array['uuid', 'text', 'text'], 'plpgsql', 'realtime.release is plpgsql');
select function_lang_is('realtime', 'hoist_context_calls', array['text'], 'plpgsql', 'realtime.hoist_context_calls is plpgsql');
select function_lang_is('realtime', 'valid_role', array['text'], 'plpgsql', 'realtime.valid_role is plpgsql');
select function_lang_is('realtime', 'published_tables', array[]::text[], 'plpgsql', 'realtime.published_tables is plpgsql');
select function_lang_is('ai', 'resolve_config', array['jsonb'], 'plpgsql', 'ai.resolve_config is plpgsql');
select function_lang_is('ai', 'setting_json', array['text'], 'plpgsql', 'ai.setting_json is plpgsql');
select function_lang_is('ai', 'kb_retrieval_config', array['uuid'], 'plpgsql', 'ai.kb_retrieval_config is plpgsql');

select is(ai.call_cost('openai', 'gpt-4.1-mini', 1000000, 1000000), 2.00::numeric, 'the longest priced prefix prices the call');
select is(ai.call_cost('openai', 'no-such-model', 1000, 1000), 0::numeric, 'an unpriced model costs 0');

select ai.record_usage(null, 'agent', '00000000-0000-0000-0000-0000000055a1', 'step-1', 'gpt-4.1-mini', 'openai', 'chat', 1000, 500, 5, true);
select ai.record_usage(null, 'agent', '00000000-0000-0000-0000-0000000055a1', 'm/step-1', 'gpt-4.1-mini', 'openai', 'chat', 10, 5, 5, true);
select results_eq($$ select * from ai.usage_totals('00000000-0000-0000-0000-0000000055a1') $$, $$ values (1010, 505, 0.001212::numeric) $$, 'a run''s totals');
select results_eq($$ select * from ai.usage_totals('00000000-0000-0000-0000-0000000055a1', 'm/') $$, $$ values (10, 5, 0.000012::numeric) $$, 'the totals of its steps under a prefix');
select results_eq($$ select * from ai.usage_totals('00000000-0000-0000-0000-0000000055a2') $$, $$ values (0, 0, 0::numeric) $$, 'zeros for a run with no calls');

insert into ai.workflows (id, name) values ('00000000-0000-0000-0000-0000000055b1', 'hooked');
select is((select count(*)::int from ai.record_webhook_execution('00000000-0000-0000-0000-0000000055b2', '{}', 1)), 0, 'no execution for a workflow that is gone');
select is((select acts_as from ai.record_webhook_execution('00000000-0000-0000-0000-0000000055b1', '{"n": 1}', 1)), 'project', 'a webhook''s execution row, answered');
select results_eq($$ select ai.start_execution(e.id, '55555555-5555-4555-8555-555555555555') from ai.workflow_executions e where e.workflow_id = '00000000-0000-0000-0000-0000000055b1'
                     union all
                     select ai.start_execution(e.id, '55555555-5555-4555-8555-555555555555') from ai.workflow_executions e where e.workflow_id = '00000000-0000-0000-0000-0000000055b1' $$,
  $$ values (true), (false) $$, 'queued -> running once');

insert into auth.users (id, email, raw_user_meta_data) values ('00000000-0000-0000-0000-0000000055c1', 'hot@example.com', '{"n": 1}');
select is((select auth.user_json(u) - 'created_at' - 'updated_at' from auth.users u where u.id = '00000000-0000-0000-0000-0000000055c1'),
  '{"id": "00000000-0000-0000-0000-0000000055c1", "aud": "authenticated", "role": "authenticated", "email": "hot@example.com", "phone": "",
    "is_anonymous": false, "app_metadata": {}, "user_metadata": {"n": 1}, "identities": []}'::jsonb, 'a user''s JSON as GoTrue answers it');
select auth.audit('token_refreshed', '00000000-0000-0000-0000-0000000055c1', 'hot@example.com', '{}', '10.0.0.1');
select is((select payload->>'log_type' || ' ' || ip_address from auth.audit_log_entries where payload->>'actor_id' = '00000000-0000-0000-0000-0000000055c1'), 'token 10.0.0.1', 'an audit entry, typed');
select is(auth.hash_token('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 'a token''s SHA-256 in hex');
select is(auth.hash_token(null), null, 'no hash of no token');
select matches(auth.new_token(), '^[A-Za-z0-9_-]{32}$', 'a new token: 24 random bytes, URL-safe');
select isnt(auth.new_token(), auth.new_token(), 'each new token differs');

insert into storage.buckets (id, name, file_size_limit, allowed_mime_types) values ('hot-bucket', 'hot-bucket', 1024, array['image/*', 'text/plain']);
select results_eq($$ select id, public, file_size_limit, allowed_mime_types from storage.bucket_rules('hot-bucket') $$,
  $$ values ('hot-bucket'::text, false, 1024::bigint, array['image/*', 'text/plain']) $$, 'a bucket''s rules');
select is((select count(*)::int from storage.bucket_rules('no-such-bucket')), 0, 'no rules for no bucket');
select is(array[storage.mime_allowed(array['image/*', 'text/plain'], 'image/png'), storage.mime_allowed(array['image/*', 'text/plain'], 'Text/Plain; charset=utf-8'),
                storage.mime_allowed(array['image/*', 'text/plain'], 'application/pdf'), storage.mime_allowed(null, 'application/pdf')],
  array[true, true, false, true], 'allowed types: a family, parameters ignored, others refused, none listed takes all');
select is(array[storage.valid_object_name('a/b.txt'), storage.valid_object_name('/a'), storage.valid_object_name('a/../b'), storage.valid_object_name('')],
  array[true, false, false, false], 'object names as Supabase Storage takes them');

select is(ai.resolve_config('{"steps": "$COPILOT_MAX_STEPS", "t": ["$COPILOT_TEMPERATURE", "plain"], "deep": {"missing": "$NO_SUCH_SETTING"}, "n": 3}'),
  '{"steps": 25, "t": [0.7, "plain"], "deep": {"missing": "$NO_SUCH_SETTING"}, "n": 3}'::jsonb, 'a configuration''s $SETTINGS resolved to their typed values, at any depth; unknown ones kept');
select is(ai.setting_json('NO_SUCH_SETTING'), null, 'no value for an unknown setting');

select * from finish();
rollback;
