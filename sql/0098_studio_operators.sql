-- Studio (the control plane's web app): its operators, their sessions, and
-- what they did. The control plane calls these as the admin login; no API
-- role may reach the schema. Every state change is one guarded statement.
--
--   1. studio.operators, studio.sessions, studio.setup_tokens, studio.invites,
--      studio.sign_in_failures, studio.audit_log                      the tables
--   2. studio.setup_needed(), studio.open_setup(token hash)          the one-time setup link
--      studio.create_first_operator(token hash, email, password)     ... used once, while no operator exists
--   3. studio.set_password(email, password)                          create or reset one (the CLI)
--   4. studio.sign_in(email, password, ip, agent, token hash)
--                                                                    a session, a wrong password, or locked
--      studio.session(token hash)                                    the live session behind a cookie
--      studio.sign_out(token hash)                                   ends it in the database
--   5. studio.invite(by, email, token hash), studio.accept_invite(token hash, password)
--   6. studio.record(operator, action, target, detail, ip)           the audit log
--
-- Sign-in attempts: past 10 failures for one e-mail in 15 minutes, that
-- e-mail is locked until the oldest of them is 15 minutes old, right
-- password or not (the server also limits attempts per address). Sessions
-- last 12 hours from their last use and 7 days at most. Passwords are
-- bcrypt (pgcrypto), checked in the same time whether the e-mail exists.

create schema studio;
revoke all on schema studio from public;

-- 1 ---------------------------------------------------------------------------
create table studio.operators (
  id uuid primary key default gen_random_uuid(),
  email text not null unique check (email = lower(email) and email ~ '^[^@\s]+@[^@\s]+$' and length(email) <= 255),
  password_hash text not null,
  created_at timestamptz not null default now(),
  created_by uuid references studio.operators (id) on delete set null,
  last_sign_in_at timestamptz
);
create index operators_created_by on studio.operators (created_by);

create table studio.sessions (
  id uuid primary key default gen_random_uuid(),
  operator_id uuid not null references studio.operators (id) on delete cascade,
  token_hash bytea not null unique,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  ended_at timestamptz,
  ip text,
  user_agent text
);
create index sessions_operator on studio.sessions (operator_id);

create table studio.setup_tokens (
  token_hash bytea primary key,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null default now() + interval '24 hours',
  used_at timestamptz
);

create table studio.invites (
  id uuid primary key default gen_random_uuid(),
  email text not null check (email = lower(email)),
  token_hash bytea not null unique,
  invited_by uuid references studio.operators (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null default now() + interval '7 days',
  accepted_at timestamptz
);
create index invites_invited_by on studio.invites (invited_by);

create table studio.sign_in_failures (
  email text not null,
  at timestamptz not null default now()
);
create index sign_in_failures_email on studio.sign_in_failures (email, at);

create table studio.audit_log (
  id bigint generated always as identity primary key,
  at timestamptz not null default now(),
  operator_id uuid references studio.operators (id) on delete set null,
  operator_email text not null,
  action text not null,
  target text,
  detail jsonb not null default '{}',
  ip text
);
create index audit_log_at on studio.audit_log (at desc);
create index audit_log_operator on studio.audit_log (operator_id);

-- Only the control plane's login (their owner) reads these; row security keeps any other out.
alter table studio.operators enable row level security;
alter table studio.sessions enable row level security;
alter table studio.setup_tokens enable row level security;
alter table studio.invites enable row level security;
alter table studio.sign_in_failures enable row level security;
alter table studio.audit_log enable row level security;

-- 2 ---------------------------------------------------------------------------
create or replace function studio.setup_needed() returns boolean
language sql stable
set search_path = ''
as $$ select not exists (select 1 from studio.operators) $$;

-- A new one-time setup link, while no operator exists; earlier links stop working.
create or replace function studio.open_setup(p_token_hash bytea) returns boolean
language plpgsql
set search_path = ''
as $$
begin
  if not studio.setup_needed() then return false; end if;
  delete from studio.setup_tokens;
  insert into studio.setup_tokens (token_hash) values (p_token_hash);
  return true;
end
$$;

-- The first operator, through a live setup link: exactly one call wins (the
-- token row is locked and used in the same statement as the check).
create or replace function studio.create_first_operator(p_token_hash bytea, p_email text, p_password text) returns studio.operators
language plpgsql
set search_path = ''
as $$
declare
  o studio.operators;
begin
  update studio.setup_tokens set used_at = now()
   where token_hash = p_token_hash and used_at is null and expires_at > now() and not exists (select 1 from studio.operators);
  if not found then perform auth.raise_error(403, 'setup_closed', 'This setup link is used, expired or no longer needed: sign in, or ask an operator for an invite'); end if;
  insert into studio.operators (email, password_hash) values (studio.valid_email(p_email), studio.hash_password(p_password)) returning * into o;
  return o;
end
$$;

-- 3 ---------------------------------------------------------------------------
create or replace function studio.valid_email(p_email text) returns text
language plpgsql immutable
set search_path = ''
as $$
declare
  v text := lower(trim(coalesce(p_email, '')));
begin
  if v !~ '^[^@\s]+@[^@\s]+$' or length(v) > 255 then perform auth.raise_error(400, 'email_invalid', 'An operator needs a valid e-mail address'); end if;
  return v;
end
$$;

create or replace function studio.hash_password(p_password text) returns text
language plpgsql volatile
set search_path = ''
as $$
begin
  if p_password is null or length(p_password) < 8 then perform auth.raise_error(400, 'weak_password', 'An operator password needs at least 8 characters'); end if;
  if octet_length(p_password) > 72 then perform auth.raise_error(400, 'weak_password', 'An operator password is at most 72 bytes (bcrypt reads no further)'); end if;
  return extensions.crypt(p_password, extensions.gen_salt('bf', 10));
end
$$;

-- Creates the operator, or sets a new password for one (ending their sessions); `created` says which.
create or replace function studio.set_password(p_email text, p_password text) returns table (id uuid, email text, created boolean)
language plpgsql
set search_path = ''
as $$
declare
  v_id uuid;
  v_email text;
  v_created boolean;
begin
  insert into studio.operators as o (email, password_hash) values (studio.valid_email(p_email), studio.hash_password(p_password))
  on conflict on constraint operators_email_key do update set password_hash = excluded.password_hash
  returning o.id, o.email, (o.xmax = 0) into v_id, v_email, v_created;
  update studio.sessions s set ended_at = now() where s.operator_id = v_id and s.ended_at is null;
  return query select v_id, v_email, v_created;
end
$$;

-- 4 ---------------------------------------------------------------------------
-- `outcome`: ok (with the new session), wrong (no such operator or another
-- password; the failure is counted) or locked (`retry_after` seconds). The
-- session's cookie token is stored as its SHA-256 only; its CSRF token is
-- derived from it by the server (an HMAC), so neither is kept in clear.
create or replace function studio.sign_in(p_email text, p_password text, p_ip text, p_agent text, p_token_hash bytea)
returns table (outcome text, session_id uuid, operator_id uuid, email text, retry_after int)
language plpgsql
set search_path = ''
as $$
declare
  v_email text := lower(trim(coalesce(p_email, '')));
  v_failures int;
  v_oldest timestamptz;
  v_session uuid;
  o studio.operators;
begin
  delete from studio.sign_in_failures f where f.at < now() - interval '15 minutes';
  select count(*), min(f.at) into v_failures, v_oldest from studio.sign_in_failures f where f.email = v_email;
  if v_failures >= 10 then
    return query select 'locked', null::uuid, null::uuid, v_email, greatest(1, ceil(extract(epoch from (v_oldest + interval '15 minutes' - now())))::int);
    return;
  end if;
  select * into o from studio.operators x where x.email = v_email;
  if not auth.password_matches(o.password_hash, coalesce(p_password, '')) then
    insert into studio.sign_in_failures (email) values (v_email);
    return query select 'wrong', null::uuid, null::uuid, v_email, null::int;
    return;
  end if;
  delete from studio.sign_in_failures f where f.email = v_email;
  update studio.operators x set last_sign_in_at = now() where x.id = o.id;
  -- Ended sessions are kept a day for the audit trail, then forgotten.
  delete from studio.sessions s where s.operator_id = o.id and (s.ended_at < now() - interval '1 day' or s.created_at < now() - interval '8 days');
  insert into studio.sessions (operator_id, token_hash, ip, user_agent)
  values (o.id, p_token_hash, p_ip, left(p_agent, 500)) returning id into v_session;
  return query select 'ok', v_session, o.id, o.email, null::int;
end
$$;

-- A session that has not ended, expired (12 hours idle, 7 days in all) or lost its operator; touched at most once a minute.
create or replace function studio.session(p_token_hash bytea)
returns table (session_id uuid, operator_id uuid, email text)
language plpgsql
set search_path = ''
as $$
begin
  update studio.sessions s set last_seen_at = now()
   where s.token_hash = p_token_hash and s.ended_at is null and s.last_seen_at < now() - interval '1 minute'
     and s.last_seen_at > now() - interval '12 hours' and s.created_at > now() - interval '7 days';
  return query
    select s.id, o.id, o.email
      from studio.sessions s join studio.operators o on o.id = s.operator_id
     where s.token_hash = p_token_hash and s.ended_at is null
       and s.last_seen_at > now() - interval '12 hours' and s.created_at > now() - interval '7 days';
end
$$;

create or replace function studio.sign_out(p_token_hash bytea) returns boolean
language sql
set search_path = ''
as $$
  with ended as (update studio.sessions set ended_at = now() where token_hash = p_token_hash and ended_at is null returning 1)
  select exists (select 1 from ended)
$$;

-- 5 ---------------------------------------------------------------------------
-- An invite for an e-mail that is no operator yet; a new one replaces an open one.
create or replace function studio.invite(p_by uuid, p_email text, p_token_hash bytea) returns studio.invites
language plpgsql
set search_path = ''
as $$
declare
  v_email text := studio.valid_email(p_email);
  i studio.invites;
begin
  if exists (select 1 from studio.operators o where o.email = v_email) then
    perform auth.raise_error(409, 'operator_exists', 'That e-mail is an operator already');
  end if;
  delete from studio.invites x where x.email = v_email and x.accepted_at is null;
  insert into studio.invites (email, token_hash, invited_by) values (v_email, p_token_hash, p_by) returning * into i;
  return i;
end
$$;

-- The invited operator, with the password they chose: once per invite, before it expires.
create or replace function studio.accept_invite(p_token_hash bytea, p_password text) returns studio.operators
language plpgsql
set search_path = ''
as $$
declare
  i studio.invites;
  o studio.operators;
begin
  update studio.invites x set accepted_at = now()
   where x.token_hash = p_token_hash and x.accepted_at is null and x.expires_at > now()
  returning * into i;
  if not found then perform auth.raise_error(403, 'invite_closed', 'This invite is used or expired: ask an operator for a new one'); end if;
  insert into studio.operators (email, password_hash, created_by) values (i.email, studio.hash_password(p_password), i.invited_by) returning * into o;
  return o;
end
$$;

-- 6 ---------------------------------------------------------------------------
create or replace function studio.record(p_operator uuid, p_email text, p_action text, p_target text, p_detail jsonb, p_ip text) returns bigint
language sql
set search_path = ''
as $$
  insert into studio.audit_log (operator_id, operator_email, action, target, detail, ip)
  values (p_operator, p_email, p_action, p_target, coalesce(p_detail, '{}'), p_ip)
  returning id
$$;
