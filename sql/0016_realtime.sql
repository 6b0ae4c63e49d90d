-- Realtime: broadcast, presence and row changes, decided here and fanned out
-- by the server (server/realtime). Every server process LISTENs on the
-- channel 'realtime'; everything that must reach subscribers on any replica
-- goes through realtime.relay(), so it arrives after the writing transaction
-- commits, in commit order, and never when it rolls back.
--
--   realtime.messages        Supabase's channel-messages table: realtime.send()
--                            writes here, policies on it guard private channels
--   realtime.nodes           live server processes (heartbeat), so a crashed
--                            replica's presences and subscriptions are reaped
--   realtime.presence        one tracked payload per connection and channel;
--                            its triggers emit presence_diff
--   realtime.subscription    postgres_changes bindings with the subscriber's
--                            role and claims
--   realtime.capture_change  the row trigger on every table in the publication
--                            supabase_realtime (kept in sync by an event trigger)
--   realtime.route_changes   which subscriber may see which change: each
--                            subscriber's SELECT policies, evaluated on the row

-- The publication Supabase projects have; `alter publication supabase_realtime
-- add table ...` is how a table starts streaming.
do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;

-- ---------------------------------------------------------------------------
-- Relay: one NOTIFY per event on channel 'realtime' as '<kind> <seq> <json>'.
-- NOTIFY carries at most 8000 bytes; a larger body waits in relay_payloads and
-- the notification carries '@<id>' instead. The per-transaction sequence keeps
-- two equal events in one transaction from being folded into one by NOTIFY.
create unlogged table if not exists realtime.relay_payloads (
  id bigint generated always as identity primary key,
  body text not null,
  created_at timestamptz not null default now()
);
revoke all on realtime.relay_payloads from public;

create or replace function realtime.relay(kind text, body jsonb) returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  seq bigint := coalesce(nullif(current_setting('realtime.relay_seq', true), ''), '0')::bigint + 1;
  text_body text := body::text;
  stored bigint;
begin
  perform set_config('realtime.relay_seq', seq::text, true);
  if octet_length(text_body) + octet_length(kind) + 24 > 7999 then
    insert into realtime.relay_payloads (body) values (text_body) returning id into stored;
    perform pg_notify('realtime', kind || ' ' || seq || ' @' || stored);
  else
    perform pg_notify('realtime', kind || ' ' || seq || ' ' || text_body);
  end if;
end
$$;
revoke execute on function realtime.relay(text, jsonb) from public;
comment on function realtime.relay(text, jsonb) is 'Sends an event to every realtime server process when the calling transaction commits.';

-- ---------------------------------------------------------------------------
-- Channel messages, with Supabase's names, so private-channel policies port.
create table if not exists realtime.messages (
  id uuid primary key default gen_random_uuid(),
  topic text not null,
  extension text not null default 'broadcast',
  event text,
  payload jsonb,
  private boolean not null default false,
  inserted_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists messages_inserted_at on realtime.messages (inserted_at);
alter table realtime.messages enable row level security;
grant select, insert, update, delete on realtime.messages to anon, authenticated, service_role;

-- The channel a policy is being evaluated for (set while a join or a send is
-- authorised), as Supabase's realtime.topic().
create or replace function realtime.topic() returns text
language sql stable
set search_path = ''
as $$
  select nullif(current_setting('realtime.topic', true), '')
$$;
grant execute on function realtime.topic() to anon, authenticated, service_role;

-- A broadcast written to realtime.messages reaches the channel's subscribers
-- once the transaction commits.
create or replace function realtime.relay_message() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if new.extension = 'broadcast' then
    perform realtime.relay('broadcast', jsonb_build_object(
      'topic', new.topic, 'event', new.event, 'payload', coalesce(new.payload, '{}'::jsonb), 'private', new.private, 'id', new.id));
  end if;
  return null;
end
$$;
drop trigger if exists relay_message on realtime.messages;
create trigger relay_message after insert on realtime.messages for each row execute function realtime.relay_message();

-- realtime.send(payload, event, topic, private): one broadcast from SQL. It
-- runs as the caller, so on a private topic the INSERT policies of
-- realtime.messages decide, as on Supabase; a refused send warns instead of
-- failing the caller's transaction.
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default false) returns void
language plpgsql
set search_path = ''
as $$
begin
  begin
    perform set_config('realtime.topic', topic, true);
    insert into realtime.messages (payload, event, topic, private, extension)
    values (payload, event, topic, private, 'broadcast');
  exception when others then
    raise warning 'ErrorSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;
grant execute on function realtime.send(jsonb, text, text, boolean) to anon, authenticated, service_role;

-- realtime.broadcast_changes(...): a row change from a trigger, as
--   {operation, schema, table, record, old_record}
-- on `topic_name` with event `event_name`. level 'topic' (the default) sends on
-- the private channel; so does 'ROW', the TG_LEVEL that Supabase's examples
-- pass; 'STATEMENT' is refused as on Supabase; any other string sends public.
create or replace function realtime.broadcast_changes(
  topic_name text, event_name text, operation text, table_name text, table_schema text,
  new record, old record, level text default 'topic'
) returns void
language plpgsql
set search_path = ''
as $$
begin
  if level = 'STATEMENT' then
    raise exception 'realtime.broadcast_changes can only be triggered for each row, not for each statement';
  end if;
  if operation not in ('INSERT', 'UPDATE', 'DELETE') then
    raise exception 'realtime.broadcast_changes: unexpected operation %', operation;
  end if;
  perform realtime.send(
    jsonb_build_object(
      'operation', operation, 'schema', table_schema, 'table', table_name,
      'record', case when operation = 'DELETE' then null else to_jsonb(new) end,
      'old_record', case when operation = 'INSERT' then null else to_jsonb(old) end),
    event_name, topic_name, level in ('topic', 'ROW'));
end
$$;
grant execute on function realtime.broadcast_changes(text, text, text, text, text, record, record, text) to anon, authenticated, service_role;

-- ---------------------------------------------------------------------------
-- Server processes. Each heartbeats every few seconds; one silent for longer
-- than the reap interval is gone, and with it its presences (leaves are
-- emitted) and subscriptions.
create unlogged table if not exists realtime.nodes (
  id uuid primary key,
  started_at timestamptz not null default now(),
  seen_at timestamptz not null default now()
);
revoke all on realtime.nodes from public;

-- Registers or refreshes a node and reaps the silent ones. Returns how many
-- other nodes are alive (a lone node need not relay its sockets' broadcasts)
-- and whether this node had to be registered anew (first beat, or it was
-- reaped while stalled: its presences and subscriptions are gone).
create or replace function realtime.node_heartbeat(node uuid, reap_after interval default '30 seconds')
returns table (others integer, registered boolean)
language plpgsql
set search_path = ''
as $$
begin
  insert into realtime.nodes as n (id) values (node_heartbeat.node)
  on conflict (id) do update set seen_at = now()
  returning (n.xmax = 0) into registered;
  delete from realtime.nodes n where n.seen_at < now() - reap_after and n.id <> node_heartbeat.node;
  select count(*)::integer into others from realtime.nodes n where n.id <> node_heartbeat.node;
  return next;
end
$$;

-- A node that stops cleanly leaves at once.
create or replace function realtime.node_leave(node uuid) returns void
language sql
set search_path = ''
as $$
  delete from realtime.nodes where id = node;
$$;

-- ---------------------------------------------------------------------------
-- Presence: one row per (connection, channel). Phoenix's wire shape:
--   presence_state  {key: {metas: [{phx_ref, ...payload}, ...]}}
--   presence_diff   {joins: {...same shape}, leaves: {...}}
create unlogged table if not exists realtime.presence (
  node uuid not null references realtime.nodes (id) on delete cascade,
  socket text not null,
  channel text not null,                 -- the joined channel (socket/join ref)
  topic text not null,
  private boolean not null,
  key text not null,
  ref text not null,
  meta jsonb not null,
  tracked_at timestamptz not null default clock_timestamp(),
  primary key (topic, private, node, socket)
);
create index if not exists presence_socket on realtime.presence (node, socket);
revoke all on realtime.presence from public;

create or replace function realtime.presence_entry(key text, ref text, meta jsonb, prev_ref text default null) returns jsonb
language sql immutable
set search_path = ''
as $$
  select jsonb_build_object(key, jsonb_build_object('metas', jsonb_build_array(
    meta || jsonb_build_object('phx_ref', ref) || case when prev_ref is null then '{}'::jsonb else jsonb_build_object('phx_ref_prev', prev_ref) end)))
$$;

create or replace function realtime.relay_presence() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  -- A re-track (UPDATE) goes out as two diffs, the leave before the join:
  -- supabase-js's join callback rewrites the metas it still holds (dropping
  -- their phx_ref), so a leave in the same diff as a join would not match.
  if tg_op in ('UPDATE', 'DELETE') then
    perform realtime.relay('presence', jsonb_build_object(
      'topic', old.topic, 'private', old.private, 'joins', '{}'::jsonb, 'leaves', realtime.presence_entry(old.key, old.ref, old.meta)));
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    perform realtime.relay('presence', jsonb_build_object(
      'topic', new.topic, 'private', new.private, 'leaves', '{}'::jsonb,
      'joins', realtime.presence_entry(new.key, new.ref, new.meta, case when tg_op = 'UPDATE' then old.ref end)));
  end if;
  return null;
end
$$;
drop trigger if exists relay_presence on realtime.presence;
create trigger relay_presence after insert or update or delete on realtime.presence
  for each row execute function realtime.relay_presence();

-- track: the connection's one entry on the channel, replaced on re-track.
create or replace function realtime.track(node uuid, socket text, channel text, topic text, private boolean, key text, meta jsonb) returns void
language sql
set search_path = ''
as $$
  insert into realtime.presence as p (node, socket, channel, topic, private, key, ref, meta)
  values (node, socket, channel, topic, private, key, gen_random_uuid()::text, meta)
  on conflict (topic, private, node, socket) do update
    set channel = excluded.channel, key = excluded.key, ref = excluded.ref, meta = excluded.meta, tracked_at = clock_timestamp();
$$;

create or replace function realtime.untrack(node uuid, channel text) returns void
language sql
set search_path = ''
as $$
  delete from realtime.presence p where p.node = untrack.node and p.channel = untrack.channel;
$$;

create or replace function realtime.presence_state(topic text, private boolean) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_object_agg(key, jsonb_build_object('metas', metas)), '{}'::jsonb)
    from (
      select p.key, jsonb_agg(p.meta || jsonb_build_object('phx_ref', p.ref) order by p.tracked_at) as metas
        from realtime.presence p
       where p.topic = presence_state.topic and p.private = presence_state.private
       group by p.key
    ) keyed
$$;

-- ---------------------------------------------------------------------------
-- Row-level security, evaluated on a row image. Postgres applies RLS only to
-- table scans; a change is routed from its row image (a deleted row is no
-- longer in the table), so the same policies are applied here: the role's
-- permissive policies for the command OR'ed, restrictive ones AND'ed, none
-- meaning no row, bypass for BYPASSRLS roles and (unless forced) the owner.
-- The expression is Postgres's own text of each policy (pg_get_expr), run as
-- the subscriber with the subscriber's claims.
create or replace function realtime.policy_expr(entity regclass, role_name name, command text) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  rel record;
  privilege text := case command when 'select' then 'select' when 'insert' then 'insert' end;
  cmd "char" := case command when 'select' then 'r' when 'insert' then 'a' end;
  permissive text;
  restrictive text;
  role_oid oid;
begin
  if privilege is null then
    raise exception 'realtime.policy_expr: command must be select or insert, got %', command;
  end if;
  select oid into role_oid from pg_catalog.pg_roles where rolname = role_name;
  if role_oid is null then
    return 'false';
  end if;
  select c.relrowsecurity, c.relforcerowsecurity, c.relowner into rel from pg_catalog.pg_class c where c.oid = entity;
  if not (case privilege
            when 'select' then pg_catalog.has_any_column_privilege(role_oid, entity, 'select')
            else pg_catalog.has_table_privilege(role_oid, entity, 'insert') end) then
    return 'false';
  end if;
  if not rel.relrowsecurity
     or exists (select 1 from pg_catalog.pg_roles where oid = role_oid and (rolbypassrls or rolsuper))
     or (pg_catalog.pg_has_role(role_oid, rel.relowner, 'usage') and not rel.relforcerowsecurity) then
    return 'true';
  end if;
  select string_agg('(' || coalesce(expr, 'false') || ')', ' or ') filter (where polpermissive),
         string_agg('(' || coalesce(expr, 'true') || ')', ' and ') filter (where not polpermissive)
    into permissive, restrictive
    from (
      select p.polpermissive,
             case when cmd = 'a' then pg_catalog.pg_get_expr(coalesce(p.polwithcheck, p.polqual), p.polrelid)
                  else pg_catalog.pg_get_expr(p.polqual, p.polrelid) end as expr
        from pg_catalog.pg_policy p
       where p.polrelid = entity
         and p.polcmd in (cmd, '*')
         and (p.polroles = '{0}' or exists (
               select 1 from unnest(p.polroles) r(oid) where r.oid <> 0 and pg_catalog.pg_has_role(role_oid, r.oid, 'usage')))
    ) applicable;
  if permissive is null then
    return 'false';
  end if;
  return '(' || permissive || ')' || coalesce(' and ' || restrictive, '');
end
$$;
comment on function realtime.policy_expr(regclass, name, text) is
  'The condition a row of entity must meet for role_name to select (or insert) it under row-level security, as SQL text.';

-- The column list of a relation, for aliasing a row image as that relation.
create or replace function realtime.column_names(entity regclass) returns text
language sql stable
set search_path = ''
as $$
  select string_agg(quote_ident(attname), ', ' order by attnum)
    from pg_catalog.pg_attribute
   where attrelid = entity and attnum > 0 and not attisdropped
$$;

-- Runs with the subscriber's role and claims set, as a request would: the
-- claims in request.jwt.claims and, so that auth.uid() need not parse JSON
-- for every row, the legacy single-claim settings too. With nulls: back to
-- the session's own role and no claims.
create or replace function realtime.become(role_name name, claims jsonb) returns void
language sql
set search_path = ''
as $$
  select set_config('request.jwt.claims', coalesce(claims::text, ''), true),
         set_config('request.jwt.claim.sub', coalesce(claims ->> 'sub', ''), true),
         set_config('request.jwt.claim.role', coalesce(claims ->> 'role', ''), true),
         set_config('request.jwt.claim.email', coalesce(claims ->> 'email', ''), true),
         set_config('role', coalesce(role_name, 'none'), true);
$$;

-- The role a subscriber's claims name (anon when none), refused unless it is
-- one the server's login role can become.
create or replace function realtime.subscriber_role(claims jsonb) returns name
language plpgsql stable
set search_path = ''
as $$
declare
  role_name text := coalesce(nullif(claims ->> 'role', ''), 'anon');
begin
  if not realtime.valid_role(role_name) then
    raise exception 'role "%" cannot subscribe to changes', role_name using errcode = '22023', hint = 'invalid_subscription';
  end if;
  return role_name;
end
$$;

-- The API roles a token may name: those the server's login role can become.
create or replace function realtime.valid_role(role_name text) returns boolean
language sql stable
set search_path = ''
as $$
  select exists (
    select 1 from pg_catalog.pg_roles r
     where r.rolname = role_name and not r.rolsuper
       and exists (select 1 from pg_catalog.pg_roles a where a.rolname = 'authenticator')
       and pg_catalog.pg_has_role('authenticator', r.oid, 'member'))
$$;

-- ---------------------------------------------------------------------------
-- Private channels: whether the caller (role and claims already set, as a
-- request sets them) may read from and write to a topic, per extension. Each
-- is the caller's policies on realtime.messages applied to the message that
-- would be read or written, with realtime.topic() returning the topic.
create or replace function realtime.channel_access(topic text)
returns table (broadcast_read boolean, broadcast_write boolean, presence_read boolean, presence_write boolean)
language plpgsql
set search_path = ''
as $$
declare
  role_name name := current_user;
  read_expr text := realtime.policy_expr('realtime.messages', role_name, 'select');
  write_expr text := realtime.policy_expr('realtime.messages', role_name, 'insert');
  cols text := realtime.column_names('realtime.messages');
  result record;
begin
  perform set_config('realtime.topic', topic, true);
  execute format(
    'select bool_or(extension = ''broadcast'' and (%1$s)) as br, bool_or(extension = ''broadcast'' and (%2$s)) as bw,
            bool_or(extension = ''presence'' and (%1$s)) as pr, bool_or(extension = ''presence'' and (%2$s)) as pw
       from unnest($1) as messages(%3$s)',
    read_expr, write_expr, cols)
  into result
  using array[
    jsonb_populate_record(null::realtime.messages, jsonb_build_object('topic', topic, 'extension', 'broadcast', 'private', true, 'event', '', 'payload', '{}'::jsonb, 'id', gen_random_uuid(), 'inserted_at', now(), 'updated_at', now())),
    jsonb_populate_record(null::realtime.messages, jsonb_build_object('topic', topic, 'extension', 'presence', 'private', true, 'event', '', 'payload', '{}'::jsonb, 'id', gen_random_uuid(), 'inserted_at', now(), 'updated_at', now()))
  ];
  broadcast_read := coalesce(result.br, false);
  broadcast_write := coalesce(result.bw, false);
  presence_read := coalesce(result.pr, false);
  presence_write := coalesce(result.pw, false);
  return next;
end
$$;
grant execute on function realtime.channel_access(text) to anon, authenticated, service_role;
comment on function realtime.channel_access(text) is
  'Private-channel rights of the current role and claims on topic: the SELECT (read) and INSERT (write) policies of realtime.messages for extensions broadcast and presence.';

-- ---------------------------------------------------------------------------
-- Row changes. Subscriptions are postgres_changes bindings of joined channels.
create unlogged table if not exists realtime.subscription (
  id bigint generated always as identity primary key,
  node uuid not null references realtime.nodes (id) on delete cascade,
  socket text not null,
  channel text not null,
  schema_name name not null,
  table_name name,                       -- null: every published table of the schema
  event text not null check (event in ('*', 'INSERT', 'UPDATE', 'DELETE')),
  filter text,                           -- as the client sent it
  filter_sql text not null default 'true', -- the same, as a condition on the row (built by realtime.subscribe)
  claims jsonb not null,
  claims_role name not null,
  created_at timestamptz not null default now()
);
create index if not exists subscription_node_entity on realtime.subscription (node, schema_name, table_name);
create index if not exists subscription_channel on realtime.subscription (node, channel);
create index if not exists subscription_socket on realtime.subscription (node, socket);
revoke all on realtime.subscription from public;

-- Tables whose changes stream: those in the publication, outside the
-- platform's own bookkeeping schemas.
create or replace function realtime.published_tables() returns table (entity regclass, schema_name name, table_name name)
language sql stable
set search_path = ''
as $$
  select format('%I.%I', pt.schemaname, pt.tablename)::regclass, pt.schemaname, pt.tablename
    from pg_catalog.pg_publication_tables pt
   where pt.pubname = 'supabase_realtime'
     and pt.schemaname not in ('realtime', 'platform', 'graphile_worker', 'pg_catalog', 'information_schema')
$$;

-- Adds a channel's bindings and returns their ids in order. Every binding is
-- checked first; one bad binding adds none and raises with the reason:
--   pg_publication_missing  there is no publication supabase_realtime
--   invalid_subscription    unknown table or column, table not published,
--                           bad event, filter or role
create or replace function realtime.subscribe(node uuid, socket text, channel text, claims jsonb, bindings jsonb) returns setof bigint
language plpgsql
set search_path = ''
as $$
declare
  binding jsonb;
  role_name name;
  ev text;
  sch text;
  tbl text;
  flt text;
  parts text[];
  col text;
  op text;
  vals text[];
  col_type text;
  condition text;
  rel regclass;
  new_id bigint;
  ids bigint[] := '{}';
begin
  if not exists (select 1 from pg_catalog.pg_publication where pubname = 'supabase_realtime') then
    raise exception 'the publication supabase_realtime does not exist; create it with: create publication supabase_realtime'
      using errcode = '55000', hint = 'pg_publication_missing';
  end if;
  role_name := realtime.subscriber_role(claims);
  if jsonb_typeof(bindings) <> 'array' then
    raise exception 'postgres_changes must be an array' using errcode = '22023', hint = 'invalid_subscription';
  end if;
  for binding in select value from jsonb_array_elements(bindings) loop
    ev := upper(coalesce(binding ->> 'event', ''));
    sch := binding ->> 'schema';
    tbl := nullif(nullif(binding ->> 'table', ''), '*');
    flt := nullif(binding ->> 'filter', '');
    condition := 'true';
    if ev not in ('*', 'INSERT', 'UPDATE', 'DELETE') then
      raise exception 'event must be INSERT, UPDATE, DELETE or *, got "%"', binding ->> 'event' using errcode = '22023', hint = 'invalid_subscription';
    end if;
    if sch is null or sch = '' then
      raise exception 'schema is required' using errcode = '22023', hint = 'invalid_subscription';
    end if;
    if tbl is not null then
      rel := to_regclass(format('%I.%I', sch, tbl));
      if rel is null then
        raise exception 'table %.% does not exist', sch, tbl using errcode = '22023', hint = 'invalid_subscription';
      end if;
      if not exists (select 1 from realtime.published_tables() p where p.entity = rel) then
        raise exception 'table %.% is not in the publication supabase_realtime; add it with: alter publication supabase_realtime add table %', sch, tbl, rel
          using errcode = '22023', hint = 'invalid_subscription';
      end if;
    elsif not exists (select 1 from realtime.published_tables() p where p.schema_name = sch) then
      raise exception 'no table of schema % is in the publication supabase_realtime', sch using errcode = '22023', hint = 'invalid_subscription';
    end if;
    if flt is not null then
      parts := regexp_match(flt, '^([^=]+)=(eq|neq|lt|lte|gt|gte|in)\.(.*)$');
      if parts is null then
        raise exception 'filter "%" must look like column=op.value with op eq, neq, lt, lte, gt, gte or in', flt using errcode = '22023', hint = 'invalid_subscription';
      end if;
      if tbl is null then
        raise exception 'a filter needs a table' using errcode = '22023', hint = 'invalid_subscription';
      end if;
      col := parts[1]; op := parts[2];
      select pg_catalog.format_type(a.atttypid, a.atttypmod) into col_type
        from pg_catalog.pg_attribute a where a.attrelid = rel and a.attname = col and a.attnum > 0 and not a.attisdropped;
      if col_type is null then
        raise exception 'column "%" does not exist in %', col, rel using errcode = '22023', hint = 'invalid_subscription';
      end if;
      if op = 'in' then
        if parts[3] !~ '^\(.*\)$' then
          raise exception 'an in filter lists values in parentheses: %=in.(a,b)', col using errcode = '22023', hint = 'invalid_subscription';
        end if;
        select coalesce(array_agg(btrim(v, ' "')), '{}') into vals
          from unnest(string_to_array(substr(parts[3], 2, length(parts[3]) - 2), ',')) v;
      else
        vals := array[parts[3]];
      end if;
      begin
        execute format('select $1::%s[]', col_type) using vals;
      exception when others then
        raise exception 'filter value for column "%" is not a valid %: %', col, col_type, sqlerrm using errcode = '22023', hint = 'invalid_subscription';
      end;
      condition := case op
        when 'in' then format('%I in (%s)', col, (select string_agg(quote_literal(v), ', ') from unnest(vals) v))
        else format('%I %s %L', col,
                    case op when 'eq' then '=' when 'neq' then '<>' when 'lt' then '<' when 'lte' then '<=' when 'gt' then '>' else '>=' end,
                    vals[1])
      end;
    end if;
    insert into realtime.subscription (node, socket, channel, schema_name, table_name, event, filter, filter_sql, claims, claims_role)
    values (subscribe.node, subscribe.socket, subscribe.channel, sch, tbl, ev, flt, condition, claims, role_name)
    returning id into new_id;
    ids := ids || new_id;
  end loop;
  return query select unnest(ids);
end
$$;

-- A channel's token changed (access_token): its bindings route with the new claims.
create or replace function realtime.update_claims(node uuid, channel text, claims jsonb) returns void
language sql
set search_path = ''
as $$
  update realtime.subscription s set claims = update_claims.claims, claims_role = realtime.subscriber_role(update_claims.claims)
   where s.node = update_claims.node and s.channel = update_claims.channel;
$$;

-- What a channel leaves behind when it closes (its presence and its
-- subscriptions), or with channel null, everything of a closed socket.
create or replace function realtime.release(node uuid, socket text, channel text default null) returns void
language sql
set search_path = ''
as $$
  delete from realtime.presence p
   where p.node = release.node and p.socket = release.socket and (release.channel is null or p.channel = release.channel);
  delete from realtime.subscription s
   where s.node = release.node and s.socket = release.socket and (release.channel is null or s.channel = release.channel);
$$;

-- The capture trigger: every committed row change of a published table, to
-- every server process, with the full old and new rows (routing applies the
-- policies and the replica identity).
create or replace function realtime.capture_change() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform realtime.relay('change', jsonb_build_object(
    'schema', tg_table_schema,
    'table', tg_table_name,
    'type', tg_op,
    'commit_timestamp', statement_timestamp(),
    'record', case when tg_op = 'DELETE' then null else to_jsonb(new) end,
    'old_record', case when tg_op = 'INSERT' then null else to_jsonb(old) end));
  return null;
end
$$;

-- Makes the capture triggers match the publication: added to published
-- tables, removed from tables that left it.
create or replace function realtime.sync_capture() returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  t record;
begin
  for t in
    select p.entity from realtime.published_tables() p
     where not exists (select 1 from pg_catalog.pg_trigger g where g.tgrelid = p.entity and g.tgname = 'realtime_capture')
  loop
    execute format('create trigger realtime_capture after insert or update or delete on %s for each row execute function realtime.capture_change()', t.entity);
  end loop;
  for t in
    select g.tgrelid::regclass as entity from pg_catalog.pg_trigger g
     where g.tgname = 'realtime_capture' and g.tgfoid = 'realtime.capture_change()'::regprocedure
       and g.tgrelid not in (select p.entity from realtime.published_tables() p)
  loop
    execute format('drop trigger realtime_capture on %s', t.entity);
  end loop;
end
$$;

create or replace function realtime.sync_capture_on_ddl() returns event_trigger
language plpgsql
set search_path = ''
as $$
begin
  perform realtime.sync_capture();
end
$$;

drop event trigger if exists realtime_publication_sync;
create event trigger realtime_publication_sync on ddl_command_end
  when tag in ('CREATE PUBLICATION', 'ALTER PUBLICATION', 'DROP PUBLICATION', 'CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TABLE')
  execute function realtime.sync_capture_on_ddl();

select realtime.sync_capture();

-- The old row as the table's replica identity exposes it: every column with
-- FULL; otherwise the identity's key columns (the primary key by default, the
-- chosen index with USING INDEX, none with NOTHING) plus, on UPDATE, the
-- previous values of the columns that changed.
create or replace function realtime.old_image(entity regclass, op text, new_row jsonb, old_row jsonb) returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  identity "char";
  keys text[];
  changed text[];
begin
  if old_row is null then
    return null;
  end if;
  select relreplident into identity from pg_catalog.pg_class where oid = entity;
  if identity = 'f' then
    return old_row;
  end if;
  select coalesce(array_agg(a.attname::text), '{}') into keys
    from pg_catalog.pg_index i
    join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
   where i.indrelid = entity
     and ((identity = 'd' and i.indisprimary) or (identity = 'i' and i.indisreplident));
  if op = 'UPDATE' and new_row is not null then
    select coalesce(array_agg(o.key), '{}') into changed
      from jsonb_each(old_row) o where (new_row -> o.key) is distinct from o.value;
  else
    changed := '{}';
  end if;
  return (select coalesce(jsonb_object_agg(o.key, o.value), '{}') from jsonb_each(old_row) o where o.key = any(keys || changed));
end
$$;

-- The request-context functions a policy calls (auth.uid(), auth.jwt(),
-- auth.role(), auth.email(), realtime.topic()) are stable and read no row:
-- written as (select auth.uid()) Postgres evaluates them once per query
-- instead of once per row, the rewrite Supabase recommends for RLS speed.
-- Applied outside string literals only (split on quotes, literal text sits at
-- even positions; a doubled quote leaves an empty part, which changes nothing).
create or replace function realtime.hoist_context_calls(expr text) returns text
language sql immutable
set search_path = ''
as $$
  select string_agg(
           case when n % 2 = 1
                then regexp_replace(part, '(^|[^.\w])(auth\.(uid|jwt|role|email)\(\)|realtime\.topic\(\))', '\1(select \2)', 'g')
                else part end,
           '''' order by n)
    from unnest(string_to_array(expr, '''')) with ordinality as t(part, n)
$$;

-- A row trimmed to the columns a role may select.
create or replace function realtime.only_columns(row_image jsonb, cols jsonb, all_columns boolean) returns jsonb
language sql immutable
set search_path = ''
as $$
  select case
    when row_image is null or all_columns then row_image
    else (select coalesce(jsonb_object_agg(k.key, k.value), '{}') from jsonb_each(row_image) k
           where k.key in (select x ->> 'name' from jsonb_array_elements(cols) x))
  end
$$;

-- Routes a batch of captured changes (a JSON array, in commit order) to this
-- node's subscriptions. One row per change and subscriber role that may see
-- it: the subscription ids, the record and old record trimmed to the columns
-- that role may select, and those columns with their types.
create or replace function realtime.route_changes(node uuid, changes jsonb)
returns table (change integer, subscription_ids bigint[], record jsonb, old_record jsonb, columns jsonb)
language plpgsql
set search_path = ''
as $$
declare
  ent record;
  sub record;
  rel regclass;
  rows_table text;
  visible integer[];
  routed_change integer[] := '{}';
  routed_id bigint[] := '{}';
  routed_role name[] := '{}';
  routed_rel oid[] := '{}';
begin
  for ent in
    select c ->> 'schema' as sch, c ->> 'table' as tbl
      from jsonb_array_elements(changes) c
     group by 1, 2
  loop
    rel := to_regclass(format('%I.%I', ent.sch, ent.tbl));
    continue when rel is null;
    rows_table := null;
    -- This node's subscriptions to the table, each with its role's policies
    -- (computed once per role).
    for sub in
      with subs as (
        select s.* from realtime.subscription s
         where s.node = route_changes.node and s.schema_name = ent.sch and (s.table_name is null or s.table_name = ent.tbl)
      ), quals as (
        select r.claims_role, realtime.hoist_context_calls(realtime.policy_expr(rel, r.claims_role, 'select')) as role_qual
          from (select distinct claims_role from subs) r
      )
      select subs.*, quals.role_qual from subs join quals using (claims_role)
       order by subs.claims_role, subs.id
    loop
      continue when sub.role_qual = 'false';
      if rows_table is null then
        -- The row each change is checked on (the new row, or the old one
        -- for a delete), typed as the table's columns, built once for all
        -- subscribers in a temporary table dropped at commit. (Rebuilding
        -- the rows from JSON per subscriber cost twice as much.)
        rows_table := 'realtime_rows_' || rel::oid;
        if to_regclass('pg_temp.' || rows_table) is not null then
          execute format('drop table pg_temp.%I', rows_table);
        end if;
        execute format(
          'create temp table %I on commit drop as
             select (jsonb_populate_record(null::%s, coalesce(nullif(c -> ''record'', ''null''), c -> ''old_record''))).*,
                    ord::integer as realtime_ord, c ->> ''type'' as realtime_op
               from jsonb_array_elements($1) with ordinality e(c, ord)
              where c ->> ''schema'' = $2 and c ->> ''table'' = $3', rows_table, rel)
          using changes, ent.sch, ent.tbl;
        execute format('grant select on pg_temp.%I to public', rows_table);
      end if;
      -- As the subscriber: the policies see its role and claims, and any
      -- table a policy reads is read with its rights. The rows are aliased
      -- as the table, so policies that name it resolve.
      perform realtime.become(sub.claims_role, sub.claims);
      execute format(
        'select coalesce(array_agg(realtime_ord order by realtime_ord), ''{}'') from pg_temp.%I as %I
          where ($1 = ''*'' or realtime_op = $1) and (%s) and (%s)',
        rows_table, ent.tbl, sub.role_qual, sub.filter_sql)
        into visible using sub.event;
      -- Back to the caller's own role (the subscriber's may not call realtime.become).
      perform set_config('role', 'none', true);
      if cardinality(visible) > 0 then
        routed_change := routed_change || visible;
        routed_id := routed_id || array_fill(sub.id, array[cardinality(visible)]);
        routed_role := routed_role || array_fill(sub.claims_role, array[cardinality(visible)]);
        routed_rel := routed_rel || array_fill(rel::oid, array[cardinality(visible)]);
      end if;
    end loop;
  end loop;
  perform realtime.become(null, null);

  -- Shape each (change, role): only the columns that role may select, and
  -- the old row as the replica identity shows it.
  return query
    with routed as (
      select * from unnest(routed_change, routed_id, routed_role, routed_rel) r(change, id, role_name, rel)
    ), grouped as (
      select g.change, g.role_name, g.rel::regclass as rel, array_agg(g.id order by g.id) as ids
        from routed g group by g.change, g.role_name, g.rel
    ), allowed as (
      select a.rel, a.role_name, a.cols, jsonb_array_length(a.cols) = a.total as all_columns
        from (
          select distinct g.rel, g.role_name from grouped g
        ) k
        cross join lateral (
          select k.rel, k.role_name,
                 coalesce(jsonb_agg(jsonb_build_object('name', at.attname, 'type', t.typname) order by at.attnum)
                   filter (where pg_catalog.has_column_privilege(k.role_name, k.rel, at.attnum, 'select')), '[]') as cols,
                 count(*) as total
            from pg_catalog.pg_attribute at join pg_catalog.pg_type t on t.oid = at.atttypid
           where at.attrelid = k.rel and at.attnum > 0 and not at.attisdropped
        ) a
    )
    select g.change, g.ids,
           realtime.only_columns(nullif(c -> 'record', 'null'), al.cols, al.all_columns),
           realtime.only_columns(realtime.old_image(g.rel, c ->> 'type', nullif(c -> 'record', 'null'), nullif(c -> 'old_record', 'null')), al.cols, al.all_columns),
           al.cols
      from grouped g
      join allowed al on al.rel = g.rel and al.role_name = g.role_name
      cross join lateral (select changes -> (g.change - 1) as c) ch
     order by g.change, g.role_name;
end
$$;
comment on function realtime.route_changes(uuid, jsonb) is
  'Which of this node''s postgres_changes subscriptions may see each change: event, filter and the subscriber''s SELECT policies on the row.';

-- ---------------------------------------------------------------------------
-- Housekeeping (worker cron): old channel messages and stale relay bodies.
create or replace function realtime.prune(keep_messages interval default '3 days') returns integer
language plpgsql
set search_path = ''
as $$
declare
  removed integer;
begin
  delete from realtime.relay_payloads where created_at < now() - interval '5 minutes';
  delete from realtime.messages where inserted_at < now() - keep_messages;
  get diagnostics removed = row_count;
  return removed;
end
$$;

-- The server's own entry points: not for the API roles (functions are
-- executable by PUBLIC unless revoked).
revoke execute on function
  realtime.node_heartbeat(uuid, interval), realtime.node_leave(uuid),
  realtime.track(uuid, text, text, text, boolean, text, jsonb), realtime.untrack(uuid, text), realtime.release(uuid, text, text),
  realtime.presence_state(text, boolean),
  realtime.subscribe(uuid, text, text, jsonb, jsonb), realtime.update_claims(uuid, text, jsonb),
  realtime.route_changes(uuid, jsonb), realtime.become(name, jsonb), realtime.sync_capture(), realtime.prune(interval)
from public;
