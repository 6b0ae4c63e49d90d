-- Queues (issue 50, item 2) in pgmq's API, without the extension: each queue
-- is two tables, pgmq.q_<name> (messages waiting or being read) and
-- pgmq.a_<name> (archived), with pgmq's columns and record shapes, so SQL
-- written for pgmq (and Supabase Queues) runs unchanged. A read hides a
-- message for its visibility timeout; a reader that dies lets it show again
-- when the timeout ends, never lost. One statement per state change, rows
-- claimed with SKIP LOCKED so readers never wait on each other.
--
-- Who may do what: creating and dropping a queue is for the owner and
-- service_role (security definer, as Supabase grants pgmq.meta to
-- service_role); everything a message goes through runs as the caller, so
-- the queue tables' grants and RLS policies decide, which is how Supabase
-- lets clients use pgmq_public through the Data API.

-- A database with the real extension keeps it: pgbase refuses to start there
-- rather than mix two pgmq's in one schema (docs/database.md).
do $$
begin
  if exists (select from pg_extension where extname = 'pgmq') then
    raise exception 'The pgmq extension is installed in this database, and pgbase provides pgmq''s API itself'
      using errcode = '55000', hint = 'Move the queues'' messages out, then drop extension pgmq cascade; or point pgbase at another database.';
  end if;
end
$$;

create schema if not exists pgmq;
revoke all on schema pgmq from public;
grant usage on schema pgmq to anon, authenticated, service_role;

create table pgmq.meta (
  queue_name varchar unique not null,
  is_partitioned boolean not null default false,
  is_unlogged boolean not null default false,
  created_at timestamptz not null default now()
);
comment on table pgmq.meta is 'One row per queue, as pgmq keeps it';
alter table pgmq.meta enable row level security;
revoke all on pgmq.meta from public, anon, authenticated, service_role;
grant select on pgmq.meta to service_role;
create policy meta_read on pgmq.meta for select to service_role using (true);

create type pgmq.message_record as (
  msg_id bigint,
  read_ct integer,
  enqueued_at timestamptz,
  vt timestamptz,
  message jsonb,
  headers jsonb
);

create type pgmq.queue_record as (
  queue_name varchar,
  is_partitioned boolean,
  is_unlogged boolean,
  created_at timestamptz
);

create type pgmq.metrics_result as (
  queue_name text,
  queue_length bigint,
  newest_msg_age_sec integer,
  oldest_msg_age_sec integer,
  total_messages bigint,
  scrape_time timestamptz,
  queue_visible_length bigint
);

-- A queue's table name, quoted; pgmq's own checks and words.
create or replace function pgmq.format_table_name(queue_name text, prefix text) returns text
language plpgsql immutable
set search_path = ''
as $$
begin
  if queue_name is null or queue_name = '' then
    raise exception 'queue name must not be empty' using errcode = '22023';
  end if;
  if queue_name ~ '\$|;|--|''' then
    raise exception 'queue name contains invalid characters: $, ;, --, or \''' using errcode = '22023';
  end if;
  if length(queue_name) > 47 then
    raise exception 'queue name is too long, maximum length is 47 characters' using errcode = '22023';
  end if;
  return lower(prefix || '_' || queue_name);
end
$$;

create or replace function pgmq._q(queue_name text) returns text
language sql immutable set search_path = ''
as $$ select 'pgmq.' || quote_ident(pgmq.format_table_name(queue_name, 'q')) $$;

create or replace function pgmq._a(queue_name text) returns text
language sql immutable set search_path = ''
as $$ select 'pgmq.' || quote_ident(pgmq.format_table_name(queue_name, 'a')) $$;

create or replace function pgmq._create(queue_name text, unlogged boolean) returns void
language plpgsql volatile
security definer
set search_path = ''
as $$
declare
  q text := pgmq._q(queue_name);
  a text := pgmq._a(queue_name);
begin
  execute format('create %s table if not exists %s (
      msg_id bigint primary key generated always as identity,
      read_ct integer not null default 0,
      enqueued_at timestamptz not null default now(),
      vt timestamptz not null,
      message jsonb,
      headers jsonb)', case when unlogged then 'unlogged' else '' end, q);
  execute format('create index if not exists %I on %s (vt)', pgmq.format_table_name(queue_name, 'q') || '_vt_idx', q);
  execute format('create table if not exists %s (
      msg_id bigint primary key,
      read_ct integer not null default 0,
      enqueued_at timestamptz not null default now(),
      archived_at timestamptz not null default now(),
      vt timestamptz not null,
      message jsonb,
      headers jsonb)', a);
  execute format('create index if not exists %I on %s (archived_at)', 'archived_at_idx_' || lower(queue_name), a);
  -- The queue's own send, read and archive, with their statements planned
  -- once per session: the hot path, where a dynamic statement would be
  -- planned again at every call. They run as the caller (grants and RLS apply).
  execute format($f$create or replace function pgmq.%1$I(msg jsonb, headers jsonb, vt timestamptz) returns bigint
      language plpgsql volatile set search_path = ''
      as $b$ declare id bigint; begin insert into %2$s (vt, message, headers) values (vt, msg, headers) returning msg_id into id; return id; end $b$ $f$,
    pgmq.format_table_name(queue_name, 'q') || '_send', q);
  execute format($f$create or replace function pgmq.%1$I(p_vt integer, p_qty integer) returns setof pgmq.message_record
      language plpgsql volatile set search_path = ''
      as $b$ begin return query with next as (
          select q.msg_id from %2$s q where q.vt <= clock_timestamp() order by q.msg_id limit p_qty for update skip locked)
        update %2$s m set vt = clock_timestamp() + make_interval(secs => p_vt), read_ct = m.read_ct + 1
        from next where m.msg_id = next.msg_id
        returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message, m.headers; end $b$ $f$,
    pgmq.format_table_name(queue_name, 'q') || '_read', q);
  execute format($f$create or replace function pgmq.%1$I(msg_ids bigint[]) returns setof bigint
      language plpgsql volatile set search_path = ''
      as $b$ begin return query with gone as (delete from %2$s q where q.msg_id = any(msg_ids)
          returning q.msg_id, q.read_ct, q.enqueued_at, q.vt, q.message, q.headers)
        insert into %3$s as a (msg_id, read_ct, enqueued_at, vt, message, headers)
        select * from gone returning a.msg_id; end $b$ $f$,
    pgmq.format_table_name(queue_name, 'q') || '_archive', q, a);
  -- The server's own role uses every queue; the Data API's roles only what a DBA grants them.
  execute format('grant all on %s, %s to service_role', q, a);
  insert into pgmq.meta (queue_name, is_partitioned, is_unlogged)
  values (lower(queue_name), false, unlogged)
  on conflict on constraint meta_queue_name_key do nothing;
end
$$;

create or replace function pgmq."create"(queue_name text) returns void
language sql volatile set search_path = ''
as $$ select pgmq._create(queue_name, false) $$;

create or replace function pgmq.create_non_partitioned(queue_name text) returns void
language sql volatile set search_path = ''
as $$ select pgmq._create(queue_name, false) $$;

create or replace function pgmq.create_unlogged(queue_name text) returns void
language sql volatile set search_path = ''
as $$ select pgmq._create(queue_name, true) $$;

create or replace function pgmq.drop_queue(queue_name text) returns boolean
language plpgsql volatile
security definer
set search_path = ''
as $$
begin
  if not exists (select 1 from pgmq.meta m where m.queue_name = lower(drop_queue.queue_name)) then
    raise notice 'pgmq queue `%` does not exist', queue_name;
    return false;
  end if;
  execute format('drop table if exists %s, %s', pgmq._q(queue_name), pgmq._a(queue_name));
  execute format('drop function if exists pgmq.%I(jsonb, jsonb, timestamptz), pgmq.%I(integer, integer), pgmq.%I(bigint[])',
    pgmq.format_table_name(queue_name, 'q') || '_send', pgmq.format_table_name(queue_name, 'q') || '_read', pgmq.format_table_name(queue_name, 'q') || '_archive');
  delete from pgmq.meta m where m.queue_name = lower(drop_queue.queue_name);
  return true;
end
$$;

create or replace function pgmq.list_queues() returns setof pgmq.queue_record
language sql stable security definer set search_path = ''
as $$ select queue_name, is_partitioned, is_unlogged, created_at from pgmq.meta order by created_at, queue_name $$;

-- Sending: the message is visible after `delay` (seconds, or a time). Every
-- overload is plpgsql calling pgmq._send (a SQL-language wrapper would be
-- planned again at each call: a third of a send's time).
-- A queue's own function (`what`: send, read or archive), quoted; for a
-- queue that does not exist, pgmq's error. The name checks of
-- format_table_name were made when the queue was created; here the name is
-- only quoted.
create or replace function pgmq._fn(queue_name text, what text, args text) returns text
language plpgsql stable set search_path = ''
as $$
declare
  fn text := 'pgmq.' || quote_ident('q_' || lower(queue_name) || '_' || what);
begin
  if to_regprocedure(fn || args) is null then
    raise exception 'relation "pgmq.q_%" does not exist', lower(queue_name) using errcode = '42P01';
  end if;
  return fn;
end
$$;

create or replace function pgmq._send(queue_name text, msg jsonb, headers jsonb, vt timestamptz) returns bigint
language plpgsql volatile set search_path = ''
as $$
declare
  id bigint;
begin
  execute 'select ' || pgmq._fn(queue_name, 'send', '(jsonb, jsonb, timestamptz)') || '($1, $2, $3)' into id using msg, headers, vt;
  return id;
end
$$;

create or replace function pgmq.send(queue_name text, msg jsonb, headers jsonb, delay timestamptz) returns setof bigint
language plpgsql volatile set search_path = ''
as $$ begin return next pgmq._send(queue_name, msg, headers, delay); end $$;

create or replace function pgmq.send(queue_name text, msg jsonb, headers jsonb, delay integer default 0) returns setof bigint
language plpgsql volatile set search_path = ''
as $$ begin return next pgmq._send(queue_name, msg, headers, clock_timestamp() + make_interval(secs => delay)); end $$;

create or replace function pgmq.send(queue_name text, msg jsonb, delay timestamptz) returns setof bigint
language plpgsql volatile set search_path = ''
as $$ begin return next pgmq._send(queue_name, msg, null, delay); end $$;

create or replace function pgmq.send(queue_name text, msg jsonb, delay integer default 0) returns setof bigint
language plpgsql volatile set search_path = ''
as $$ begin return next pgmq._send(queue_name, msg, null, clock_timestamp() + make_interval(secs => delay)); end $$;

create or replace function pgmq._send_batch(queue_name text, msgs jsonb[], headers jsonb[], vt timestamptz) returns setof bigint
language plpgsql volatile set search_path = ''
as $$
begin
  if headers is not null and cardinality(headers) <> cardinality(msgs) then
    raise exception 'headers array must have the same length as msgs array' using errcode = '22023';
  end if;
  return query execute format('insert into %s (vt, message, headers)
      select $1, m.message, ($3)[m.n] from unnest($2) with ordinality as m(message, n) order by m.n
      returning msg_id', pgmq._q(queue_name))
    using vt, msgs, headers;
end
$$;

create or replace function pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[], delay timestamptz) returns setof bigint
language plpgsql volatile set search_path = ''
as $$ begin return query select pgmq._send_batch(queue_name, msgs, headers, delay); end $$;

create or replace function pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[], delay integer default 0) returns setof bigint
language plpgsql volatile set search_path = ''
as $$ begin return query select pgmq._send_batch(queue_name, msgs, headers, clock_timestamp() + make_interval(secs => delay)); end $$;

create or replace function pgmq.send_batch(queue_name text, msgs jsonb[], delay timestamptz) returns setof bigint
language plpgsql volatile set search_path = ''
as $$ begin return query select pgmq._send_batch(queue_name, msgs, null, delay); end $$;

create or replace function pgmq.send_batch(queue_name text, msgs jsonb[], delay integer default 0) returns setof bigint
language plpgsql volatile set search_path = ''
as $$ begin return query select pgmq._send_batch(queue_name, msgs, null, clock_timestamp() + make_interval(secs => delay)); end $$;

-- Reading: up to `qty` visible messages, oldest first, hidden for `vt` seconds.
create or replace function pgmq.read(queue_name text, vt integer, qty integer, conditional jsonb default '{}') returns setof pgmq.message_record
language plpgsql volatile set search_path = ''
as $$
begin
  if conditional is null or conditional = '{}'::jsonb then
    return query execute 'select * from ' || pgmq._fn(queue_name, 'read', '(integer, integer)') || '($1, $2)' using vt, qty;
    return;
  end if;
  return query execute format('with next as (
        select msg_id from %1$s
        where vt <= clock_timestamp()%2$s
        order by msg_id limit $1
        for update skip locked)
      update %1$s m set vt = clock_timestamp() + make_interval(secs => $2), read_ct = m.read_ct + 1
      from next where m.msg_id = next.msg_id
      returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message, m.headers', pgmq._q(queue_name),
      case when conditional is null or conditional = '{}'::jsonb then '' else ' and message @> $3' end)
    using qty, vt, conditional;
end
$$;

create or replace function pgmq.read_with_poll(queue_name text, vt integer, qty integer, max_poll_seconds integer default 5, poll_interval_ms integer default 100, conditional jsonb default '{}') returns setof pgmq.message_record
language plpgsql volatile set search_path = ''
as $$
declare
  stop_at timestamptz := clock_timestamp() + make_interval(secs => least(greatest(max_poll_seconds, 0), 60));
  found_any boolean;
  r pgmq.message_record;
begin
  loop
    found_any := false;
    for r in select * from pgmq.read(queue_name, vt, qty, conditional) loop
      found_any := true;
      return next r;
    end loop;
    exit when found_any or clock_timestamp() >= stop_at;
    perform pg_sleep(greatest(poll_interval_ms, 10) / 1000.0);
  end loop;
end
$$;

create or replace function pgmq.pop(queue_name text, qty integer default 1) returns setof pgmq.message_record
language plpgsql volatile set search_path = ''
as $$
begin
  return query execute format('with next as (
        select msg_id from %1$s where vt <= clock_timestamp()
        order by msg_id limit $1
        for update skip locked)
      delete from %1$s m using next where m.msg_id = next.msg_id
      returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message, m.headers', pgmq._q(queue_name))
    using qty;
end
$$;

create or replace function pgmq.set_vt(queue_name text, msg_id bigint, vt integer) returns setof pgmq.message_record
language plpgsql volatile set search_path = ''
as $$
begin
  return query execute format('update %s set vt = clock_timestamp() + make_interval(secs => $2) where msg_id = $1
      returning msg_id, read_ct, enqueued_at, vt, message, headers', pgmq._q(queue_name))
    using msg_id, vt;
end
$$;

create or replace function pgmq.delete(queue_name text, msg_ids bigint[]) returns setof bigint
language plpgsql volatile set search_path = ''
as $$
begin
  return query execute format('delete from %s where msg_id = any($1) returning msg_id', pgmq._q(queue_name)) using msg_ids;
end
$$;

create or replace function pgmq.delete(queue_name text, msg_id bigint) returns boolean
language plpgsql volatile set search_path = ''
as $$ begin return exists (select from pgmq.delete(queue_name, array[msg_id])); end $$;

create or replace function pgmq.archive(queue_name text, msg_ids bigint[]) returns setof bigint
language plpgsql volatile set search_path = ''
as $$
begin
  return query execute 'select * from ' || pgmq._fn(queue_name, 'archive', '(bigint[])') || '($1)' using msg_ids;
end
$$;

create or replace function pgmq.archive(queue_name text, msg_id bigint) returns boolean
language plpgsql volatile set search_path = ''
as $$ begin return exists (select from pgmq.archive(queue_name, array[msg_id])); end $$;

create or replace function pgmq.purge_queue(queue_name text) returns bigint
language plpgsql volatile set search_path = ''
as $$
declare
  n bigint;
begin
  execute format('with gone as (delete from %s returning 1) select count(*) from gone', pgmq._q(queue_name)) into n;
  return n;
end
$$;

create or replace function pgmq.metrics(queue_name text) returns pgmq.metrics_result
language plpgsql volatile set search_path = ''
as $$
declare
  result pgmq.metrics_result;
begin
  execute format('select $1::text, count(*), extract(epoch from now() - max(enqueued_at))::int,
        extract(epoch from now() - min(enqueued_at))::int,
        (select case when s.is_called then s.last_value else 0 end from %s s),
        now(), count(*) filter (where vt <= now())
      from %s', pg_get_serial_sequence(pgmq._q(queue_name), 'msg_id'), pgmq._q(queue_name))
    into result using lower(queue_name);
  return result;
end
$$;

create or replace function pgmq.metrics_all() returns setof pgmq.metrics_result
language sql volatile set search_path = ''
as $$ select (pgmq.metrics(m.queue_name)).* from pgmq.list_queues() m $$;

-- Creating and dropping queues, and listing them, is for the owner and service_role.
revoke all on function pgmq._create(text, boolean), pgmq."create"(text), pgmq.create_non_partitioned(text),
  pgmq.create_unlogged(text), pgmq.drop_queue(text), pgmq.list_queues(), pgmq.metrics_all() from public;
grant execute on function pgmq._create(text, boolean), pgmq."create"(text), pgmq.create_non_partitioned(text),
  pgmq.create_unlogged(text), pgmq.drop_queue(text), pgmq.list_queues(), pgmq.metrics_all() to service_role;

