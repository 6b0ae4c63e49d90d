-- Identity: the SQL functions of every sign-in, refresh and user answer,
-- in plpgsql, planned once per connection instead of on every call (why:
-- sql/0083, sql/CONVENTIONS.md "Security"). A token refresh calls
-- auth.user_json (its user), auth.audit (its log entry), auth.hash_token
-- (twice) and auth.new_token; as `language sql` with a SET clause they cost
-- about 0.45 ms of PostgreSQL's time a refresh under load
-- (`pg_stat_user_functions`, bench:auth). Same arguments, same answers;
-- privileges stay as they were (create or replace keeps them).

-- The user as GoTrue answers it: empty strings and empty lists where GoTrue has them, factors only when there are some.
create or replace function auth.user_json(u auth.users) returns jsonb
language plpgsql stable
set search_path = ''
as $$
begin
  return jsonb_strip_nulls(jsonb_build_object(
    'id', u.id,
    'aud', coalesce(u.aud, 'authenticated'),
    'role', coalesce(u.role, 'authenticated'),
    'email', coalesce(u.email, ''),
    'email_confirmed_at', u.email_confirmed_at,
    'phone', coalesce(u.phone, ''),
    'phone_confirmed_at', u.phone_confirmed_at,
    'confirmation_sent_at', u.confirmation_sent_at,
    'confirmed_at', u.confirmed_at,
    'recovery_sent_at', u.recovery_sent_at,
    'new_email', nullif(u.email_change, ''),
    'email_change_sent_at', u.email_change_sent_at,
    'invited_at', u.invited_at,
    'last_sign_in_at', u.last_sign_in_at,
    'banned_until', u.banned_until,
    'created_at', u.created_at,
    'updated_at', u.updated_at,
    'is_anonymous', u.is_anonymous
  )) || jsonb_build_object(
    'app_metadata', coalesce(u.raw_app_meta_data, '{}'),
    'user_metadata', coalesce(u.raw_user_meta_data, '{}'),
    'identities', coalesce((
      select jsonb_agg(jsonb_build_object(
        'identity_id', i.id, 'id', i.provider_id, 'user_id', i.user_id, 'identity_data', i.identity_data,
        'provider', i.provider, 'last_sign_in_at', i.last_sign_in_at, 'created_at', i.created_at,
        'updated_at', i.updated_at, 'email', i.email) order by i.created_at)
      from auth.identities i where i.user_id = u.id), '[]')
  ) || coalesce((
    select jsonb_build_object('factors', jsonb_agg(jsonb_build_object(
      'id', f.id, 'friendly_name', coalesce(f.friendly_name, ''), 'factor_type', f.factor_type,
      'status', f.status, 'created_at', f.created_at, 'updated_at', f.updated_at) order by f.created_at))
    from auth.mfa_factors f where f.user_id = u.id having count(*) > 0), '{}');
end
$$;

-- One audit log entry, typed as GoTrue types it (token, user or account).
create or replace function auth.audit(action text, actor uuid, actor_username text, traits jsonb default '{}', ip text default '') returns void
language plpgsql
set search_path = ''
as $$
begin
  insert into auth.audit_log_entries (id, payload, created_at, ip_address)
  values (gen_random_uuid(),
          json_build_object('action', action, 'actor_id', actor, 'actor_username', coalesce(actor_username, ''),
                            'log_type', case when action in ('login', 'logout', 'token_refreshed', 'token_revoked') then 'token'
                                             when action like 'user_%' then 'user' else 'account' end,
                            'traits', traits),
          now(), coalesce(ip, ''));
end
$$;

-- What is stored of a token: its SHA-256, in hex.
create or replace function auth.hash_token(token text) returns text
language plpgsql immutable strict
set search_path = ''
as $$
begin
  return encode(extensions.digest(token, 'sha256'), 'hex');
end
$$;

-- 24 random bytes, URL-safe base64.
create or replace function auth.new_token() returns text
language plpgsql volatile
set search_path = ''
as $$
begin
  return translate(encode(extensions.gen_random_bytes(24), 'base64'), '+/', '-_');
end
$$;
