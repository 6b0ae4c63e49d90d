-- HTTP from SQL (sql/0123) in pg_net's API: a request queued with its URL,
-- params, headers and body; malformed input refused at once; the senders'
-- functions and the queue kept from the API roles; a Database Webhook's
-- payload for each kind of change, logged in supabase_functions.hooks.
begin;
select plan(15);

select ok(net.http_get('https://example.com/a?x=1', '{"q": "a b&c"}') > 0, 'http_get answers an id');
select is((select url from net.http_request_queue order by id desc limit 1), 'https://example.com/a?x=1&q=a%20b%26c', 'params added to the query string, encoded');
select ok(net.http_post('https://example.com/hook', '{"hello": "world"}') > 0, 'http_post');
select is((select headers || jsonb_build_object('body', convert_from(body, 'UTF8')::jsonb) from net.http_request_queue order by id desc limit 1),
  '{"Content-Type": "application/json", "body": {"hello": "world"}}'::jsonb, 'with pg_net''s default content type and the JSON body');
select ok(net.http_delete('https://example.com/item/1') > 0, 'http_delete');
select throws_ok($$ select net.http_get('file:///etc/passwd') $$, '22023', 'Invalid URL: file:///etc/passwd', 'a URL that is not http(s) is refused');
select throws_ok($$ select net.http_get('https://example.com', timeout_milliseconds => 0) $$, '22023', null, 'a timeout out of range is refused');

create table public.hooked (id int primary key, v text);
create trigger hooked_hook after insert or update or delete on public.hooked
  for each row execute function supabase_functions.http_request('https://example.com/hook', 'POST', '{"Content-Type":"application/json"}', '{}', '1000');
insert into public.hooked values (1, 'a');
update public.hooked set v = 'b';
delete from public.hooked;
select is((select array_agg(convert_from(body, 'UTF8')::jsonb ->> 'type' order by id) from net.http_request_queue where url = 'https://example.com/hook' and body::text <> convert_to('{"hello": "world"}', 'UTF8')::text),
  array['INSERT', 'UPDATE', 'DELETE'], 'a webhook queues one request per change');
select is((select convert_from(body, 'UTF8')::jsonb from net.http_request_queue order by id desc limit 1),
  '{"type": "DELETE", "table": "hooked", "schema": "public", "record": null, "old_record": {"id": 1, "v": "b"}}'::jsonb, 'in the Database Webhook shape');
select is((select count(*)::int from supabase_functions.hooks where hook_name = 'hooked_hook'), 3, 'each logged with its request');

select is((select count(*)::int from net.take_requests(100)), 6, 'the senders take every queued request');
select lives_ok($$ select net.record_responses('[{"id": 1, "status_code": 200, "content": "ok"}]') $$, 'and record answers');

insert into net._http_response (id, status_code, created) values (900001, 200, now() - interval '7 hours');
select is(net.tidy_responses(), 1, 'answers older than pg_net.ttl (6 hours) are removed');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000aa');
select throws_ok($$ select * from net.take_requests(1) $$, '42501', null, 'an API role cannot take requests');
select throws_ok($$ select * from net._http_response $$, '42501', null, 'nor read the answers');
reset role;

select * from finish();
rollback;
