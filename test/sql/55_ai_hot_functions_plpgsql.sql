-- The functions every run calls are plpgsql, planned once per connection
-- (a `language sql` function with a SET clause is planned again on every
-- call: sql/0083, sql/0084), and answer as they did: a call's price by the
-- longest priced prefix or 0, a run's totals or zeros, a webhook's
-- execution row or none, queued -> running once.
begin;
select plan(12);

select function_lang_is('ai', 'usage_totals', array['uuid', 'text'], 'plpgsql', 'ai.usage_totals is plpgsql');
select function_lang_is('ai', 'call_cost', array['text', 'text', 'integer', 'integer'], 'plpgsql', 'ai.call_cost is plpgsql');
select function_lang_is('ai', 'record_webhook_execution', array['uuid', 'jsonb', 'integer'], 'plpgsql', 'ai.record_webhook_execution is plpgsql');
select function_lang_is('ai', 'start_execution', array['uuid', 'uuid'], 'plpgsql', 'ai.start_execution is plpgsql');

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

select * from finish();
rollback;
