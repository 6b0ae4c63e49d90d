-- HTTP from SQL (issue 50, item 3) in pg_net's API, without the extension,
-- and Supabase's Database Webhooks (supabase_functions.http_request as a
-- row trigger). net.http_get/post/delete queue the request and answer its
-- id at once; the queue's NOTIFY is delivered at commit, so a worker sends
-- the request only once the calling transaction commits, and never when it
-- rolls back. The worker (worker/net.ts) sends through the same outbound
-- guard as the AI surface (private addresses refused unless
-- HTTP_ALLOW_PRIVATE_NETWORKS allows them) and records the answer, or why
-- there is none, in net._http_response, kept for pg_net.ttl (6 hours).

do $$
begin
  if exists (select from pg_extension where extname = 'pg_net') then
    raise exception 'The pg_net extension is installed in this database, and pgbase provides pg_net''s API itself'
      using errcode = '55000', hint = 'Drop extension pg_net (its pending requests go with it), or point pgbase at another database.';
  end if;
end
$$;

create schema if not exists net;
revoke all on schema net from public;
grant usage on schema net to anon, authenticated, service_role;

create table net.http_request_queue (
  id bigserial primary key,
  method text not null check (method in ('GET', 'POST', 'DELETE')),
  url text not null,
  headers jsonb not null default '{}',
  body bytea,
  timeout_milliseconds integer not null
);
alter table net.http_request_queue enable row level security;
revoke all on net.http_request_queue from public, anon, authenticated, service_role;

create table net._http_response (
  id bigint primary key,
  status_code integer,
  content_type text,
  headers jsonb,
  content text,
  timed_out boolean,
  error_msg text,
  created timestamptz not null default now()
);
create index _http_response_created_idx on net._http_response (created);
alter table net._http_response enable row level security;
revoke all on net._http_response from public, anon, authenticated;
grant select on net._http_response to service_role;

-- Tell the senders, at commit.
create or replace function net.wake_senders() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  perform pg_notify('pgbase_net', '');
  return null;
end
$$;
create trigger wake_senders after insert on net.http_request_queue for each statement execute function net.wake_senders();

-- A URL pg_net would send, with `params` added to its query string; or the refusal.
create or replace function net.request_url(url text, params jsonb) returns text
language plpgsql immutable
set search_path = ''
as $$
declare
  query text;
begin
  if url is null or url !~* '^https?://[^\s/?#]+[^\s]*$' then
    raise exception 'Invalid URL: %', coalesce(url, 'null') using errcode = '22023', hint = 'An http:// or https:// URL with a host.';
  end if;
  if params is null or params = '{}'::jsonb then return url; end if;
  if jsonb_typeof(params) <> 'object' then
    raise exception 'params must be a JSON object of strings' using errcode = '22023';
  end if;
  select string_agg(net.url_encode(key) || '=' || net.url_encode(case when jsonb_typeof(value) = 'string' then value #>> '{}' else value::text end), '&' order by key)
    into query from jsonb_each(params);
  return url || case when url like '%?%' then '&' else '?' end || query;
end
$$;

create or replace function net.url_encode(s text) returns text
language sql immutable strict
set search_path = ''
as $$
  select string_agg(case when b ~ '^[A-Za-z0-9_.~-]$' then b else upper(regexp_replace(encode(convert_to(b, 'UTF8'), 'hex'), '(..)', '%\1', 'g')) end, '' order by n)
  from regexp_split_to_table(s, '') with ordinality as c(b, n)
$$;

create or replace function net._enqueue(method text, url text, headers jsonb, body bytea, timeout_milliseconds integer) returns bigint
language plpgsql volatile
security definer
set search_path = ''
as $$
declare
  request_id bigint;
begin
  if headers is not null and jsonb_typeof(headers) <> 'object' then
    raise exception 'headers must be a JSON object' using errcode = '22023';
  end if;
  if timeout_milliseconds is null or timeout_milliseconds < 1 or timeout_milliseconds > 300000 then
    raise exception 'timeout_milliseconds must be between 1 and 300000' using errcode = '22023';
  end if;
  insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  values (method, url, coalesce(headers, '{}'), body, timeout_milliseconds)
  returning id into request_id;
  return request_id;
end
$$;
revoke all on function net._enqueue(text, text, jsonb, bytea, integer) from public;

create or replace function net.http_get(url text, params jsonb default '{}', headers jsonb default '{}', timeout_milliseconds integer default 5000) returns bigint
language sql volatile security definer set search_path = ''
as $$ select net._enqueue('GET', net.request_url(url, params), headers, null, timeout_milliseconds) $$;

create or replace function net.http_post(url text, body jsonb default '{}', params jsonb default '{}', headers jsonb default '{"Content-Type": "application/json"}', timeout_milliseconds integer default 5000) returns bigint
language sql volatile security definer set search_path = ''
as $$ select net._enqueue('POST', net.request_url(url, params), headers, convert_to(body::text, 'UTF8'), timeout_milliseconds) $$;

create or replace function net.http_delete(url text, params jsonb default '{}', headers jsonb default '{}', timeout_milliseconds integer default 5000, body jsonb default null) returns bigint
language sql volatile security definer set search_path = ''
as $$ select net._enqueue('DELETE', net.request_url(url, params), headers, convert_to(body::text, 'UTF8'), timeout_milliseconds) $$;

revoke all on function net.http_get(text, jsonb, jsonb, integer), net.http_post(text, jsonb, jsonb, jsonb, integer),
  net.http_delete(text, jsonb, jsonb, integer, jsonb) from public;
grant execute on function net.http_get(text, jsonb, jsonb, integer), net.http_post(text, jsonb, jsonb, jsonb, integer),
  net.http_delete(text, jsonb, jsonb, integer, jsonb) to anon, authenticated, service_role;

-- For the senders (the worker's login): requests to send, taken off the queue.
create or replace function net.take_requests(batch_size integer default 200)
returns table (id bigint, method text, url text, headers jsonb, body text, timeout_milliseconds integer)
language sql volatile security definer set search_path = ''
as $$
  with taken as (
    select q.id from net.http_request_queue q order by q.id limit batch_size for update skip locked
  )
  delete from net.http_request_queue q using taken where q.id = taken.id
  returning q.id, q.method, q.url, q.headers, convert_from(q.body, 'UTF8'), q.timeout_milliseconds
$$;

-- Answers recorded in one statement (a JSON array of responses).
create or replace function net.record_responses(responses jsonb) returns void
language sql volatile security definer set search_path = ''
as $$
  insert into net._http_response (id, status_code, content_type, headers, content, timed_out, error_msg)
  select r.id, r.status_code, r.content_type, r.headers, r.content, coalesce(r.timed_out, false), r.error_msg
  from jsonb_to_recordset(responses) as r(id bigint, status_code integer, content_type text, headers jsonb, content text, timed_out boolean, error_msg text)
  on conflict (id) do nothing
$$;

-- Answers older than pg_net.ttl (pg_net's setting, 6 hours) are removed.
create or replace function net.tidy_responses() returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  n integer;
begin
  delete from net._http_response where created < now() - coalesce(nullif(current_setting('pg_net.ttl', true), ''), '6 hours')::interval;
  get diagnostics n = row_count;
  return n;
end
$$;
revoke all on function net.take_requests(integer), net.record_responses(jsonb), net.tidy_responses() from public;

-- Database Webhooks, as Supabase's dashboard creates them:
--   create trigger "my_hook" after insert or update or delete on public.orders
--   for each row execute function supabase_functions.http_request(
--     'https://example.com/hook', 'POST', '{"Content-Type":"application/json"}', '{}', '1000');
-- The request goes out after the change commits, with
-- {type, table, schema, record, old_record}; each is logged in
-- supabase_functions.hooks with its request id.
create schema if not exists supabase_functions;
revoke all on schema supabase_functions from public;
grant usage on schema supabase_functions to anon, authenticated, service_role;

create table supabase_functions.hooks (
  id bigserial primary key,
  hook_table_id integer not null,
  hook_name text not null,
  created_at timestamptz not null default now(),
  request_id bigint
);
create index supabase_functions_hooks_request_id_idx on supabase_functions.hooks (request_id);
create index supabase_functions_hooks_h_table_id_h_name_idx on supabase_functions.hooks (hook_table_id, hook_name);
comment on table supabase_functions.hooks is 'Supabase Functions Hooks: Audit trail for triggered hooks.';
alter table supabase_functions.hooks enable row level security;
revoke all on supabase_functions.hooks from public, anon, authenticated;
grant select on supabase_functions.hooks to service_role;

-- A row change in the Database Webhook shape (also a workflow's row-change input, sql/0124).
create or replace function supabase_functions.webhook_payload(op text, table_name text, schema_name text, new_row jsonb, old_row jsonb) returns jsonb
language sql immutable set search_path = ''
as $$
  select jsonb_build_object('type', op, 'table', table_name, 'schema', schema_name,
    'record', case when op in ('INSERT', 'UPDATE') then new_row end,
    'old_record', case when op in ('UPDATE', 'DELETE') then old_row end)
$$;

create or replace function supabase_functions.http_request() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  url text := tg_argv[0];
  method text := upper(coalesce(tg_argv[1], 'null'));
  headers jsonb := case when tg_argv[2] is null or tg_argv[2] = 'null' then '{"Content-Type": "application/json"}' else tg_argv[2]::jsonb end;
  params jsonb := case when tg_argv[3] is null or tg_argv[3] = 'null' then '{}' else tg_argv[3]::jsonb end;
  timeout_ms integer := case when tg_argv[4] is null or tg_argv[4] = 'null' then 1000 else tg_argv[4]::integer end;
  payload jsonb;
  request_id bigint;
begin
  if url is null or url = 'null' then
    raise exception 'url argument is missing' using errcode = '22023';
  end if;
  if method = 'NULL' then
    raise exception 'method argument is missing' using errcode = '22023';
  end if;
  if method = 'GET' then
    request_id := net.http_get(url, params, headers, timeout_ms);
  elsif method = 'POST' then
    payload := supabase_functions.webhook_payload(tg_op, tg_table_name, tg_table_schema,
      case when tg_op <> 'DELETE' then to_jsonb(new) end, case when tg_op <> 'INSERT' then to_jsonb(old) end);
    request_id := net.http_post(url, payload, params, headers, timeout_ms);
  else
    raise exception 'method argument % is invalid', method using errcode = '22023';
  end if;
  insert into supabase_functions.hooks (hook_table_id, hook_name, request_id) values (tg_relid, tg_name, request_id);
  return coalesce(new, old);
end
$$;
