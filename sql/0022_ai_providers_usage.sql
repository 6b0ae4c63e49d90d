-- AI surface: provider keys, the usage ledger, prices and credits.
--
--   1. ai.provider_keys       one key per vendor for the project, encrypted (spec 2.12, 3.5)
--   2. ai.put_provider_key    the upsert; ai.provider_key (decrypted, server only)
--   3. ai.model_prices        per-token prices by provider and model prefix, for a DBA to edit
--   4. ai.usage               one row per model call; ai.record_usage prices it
--   5. ai.credits             a project balance, checked when AI_BILLING=credits

-- 1. Provider keys -------------------------------------------------------------------

create table ai.provider_keys (
  id uuid primary key default gen_random_uuid(),
  provider text not null unique check (provider in ('openai', 'anthropic', 'gemini', 'openrouter')),
  encrypted_key bytea not null,
  masked_key text not null,
  is_valid boolean not null,
  last_validated_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table ai.provider_keys enable row level security;
create policy provider_keys_read on ai.provider_keys for select to authenticated using (true);
-- Signed-in users see the records, never the encrypted key.
grant select (id, provider, masked_key, is_valid, last_validated_at, created_at, updated_at) on ai.provider_keys to authenticated;
grant select, insert, update, delete on ai.provider_keys to service_role;
create trigger provider_keys_touch before update on ai.provider_keys for each row execute function ai.touch();

-- 2. Writing and reading a key ----------------------------------------------------------

-- Project configuration is the service role's to change: a signed-in user is
-- refused here, before the server spends a call to a vendor on their behalf.
create or replace function ai.require_service() returns void
language plpgsql stable
set search_path = ''
as $$
begin
  if auth.role() is distinct from 'service_role' then
    perform auth.raise_error(403, 'FORBIDDEN', 'Only the service-role key may change project configuration');
  end if;
end
$$;
grant execute on function ai.require_service() to authenticated, service_role;

-- Stores (or replaces) the project's key for a provider, after the server has
-- asked the vendor: is_valid is its verdict (false when the vendor could not
-- be reached). Answers the record and whether it was new.
create or replace function ai.put_provider_key(p_provider text, p_key text, p_is_valid boolean, p_master_key text)
returns table (id uuid, provider text, masked_key text, is_valid boolean, last_validated_at timestamptz, created_at timestamptz, updated_at timestamptz, inserted boolean)
language sql
set search_path = ''
as $$
  insert into ai.provider_keys as k (provider, encrypted_key, masked_key, is_valid, last_validated_at)
  values (p_provider, ai.encrypt(p_key, p_master_key), ai.mask(p_key), p_is_valid, now())
  on conflict (provider) do update set encrypted_key = excluded.encrypted_key, masked_key = excluded.masked_key,
    is_valid = excluded.is_valid, last_validated_at = excluded.last_validated_at
  returning k.id, k.provider, k.masked_key, k.is_valid, k.last_validated_at, k.created_at, k.updated_at, (xmax = 0)
$$;

-- The project's key for a provider, decrypted: for the model router only.
create or replace function ai.provider_key(p_provider text, p_master_key text) returns text
language sql stable
set search_path = ''
as $$ select ai.decrypt(k.encrypted_key, p_master_key) from ai.provider_keys k where k.provider = p_provider $$;

revoke execute on function ai.put_provider_key(text, text, boolean, text), ai.provider_key(text, text) from public;
grant execute on function ai.put_provider_key(text, text, boolean, text), ai.provider_key(text, text) to service_role;

-- 3. Prices ------------------------------------------------------------------------

-- US dollars per million tokens. The longest matching model prefix wins, so
-- 'gpt-4.1-mini' prices before 'gpt-4.1'. Public list prices when seeded.
create table ai.model_prices (
  provider text not null check (provider in ('openai', 'anthropic', 'gemini', 'openrouter')),
  model_prefix text not null,
  input_per_million numeric not null check (input_per_million >= 0),
  output_per_million numeric not null check (output_per_million >= 0),
  primary key (provider, model_prefix)
);
alter table ai.model_prices enable row level security;
create policy prices_read on ai.model_prices for select to authenticated using (true);
grant select on ai.model_prices to authenticated, service_role;
grant insert, update, delete on ai.model_prices to service_role;

insert into ai.model_prices (provider, model_prefix, input_per_million, output_per_million) values
  ('openai', 'gpt-4.1', 2.00, 8.00),
  ('openai', 'gpt-4.1-mini', 0.40, 1.60),
  ('openai', 'gpt-4.1-nano', 0.10, 0.40),
  ('openai', 'gpt-4o', 2.50, 10.00),
  ('openai', 'gpt-4o-mini', 0.15, 0.60),
  ('openai', 'o3', 2.00, 8.00),
  ('openai', 'o4-mini', 1.10, 4.40),
  ('openai', 'text-embedding-3-small', 0.02, 0),
  ('openai', 'text-embedding-3-large', 0.13, 0),
  ('anthropic', 'claude-opus-4', 15.00, 75.00),
  ('anthropic', 'claude-sonnet-4', 3.00, 15.00),
  ('anthropic', 'claude-3-5-haiku', 0.80, 4.00),
  ('anthropic', 'claude-haiku-4', 1.00, 5.00),
  ('gemini', 'gemini-2.5-pro', 1.25, 10.00),
  ('gemini', 'gemini-2.5-flash', 0.30, 2.50),
  ('gemini', 'gemini-2.0-flash', 0.10, 0.40),
  ('gemini', 'text-embedding-004', 0, 0);

-- 4. The ledger ---------------------------------------------------------------------

create table ai.usage (
  id bigint generated always as identity primary key,
  user_id uuid,
  feature text not null,
  run_id text,
  -- The step of the run that made the call (a workflow block id, an agent turn).
  step text,
  model text not null,
  provider text not null,
  kind text not null check (kind in ('chat', 'embedding')),
  tokens_in int not null default 0 check (tokens_in >= 0),
  tokens_out int not null default 0 check (tokens_out >= 0),
  latency_ms int not null default 0,
  cost_usd numeric not null default 0,
  ok boolean not null default true,
  created_at timestamptz not null default now()
);
create index usage_created_at on ai.usage (created_at);
create index usage_user on ai.usage (user_id, created_at);
alter table ai.usage enable row level security;
-- A user sees their own calls; the service role sees all.
create policy usage_read on ai.usage for select to authenticated using (user_id = auth.uid());
grant select on ai.usage to authenticated, service_role;

-- The price of a call: the longest matching prefix of the model id (after its provider prefix).
create or replace function ai.call_cost(p_provider text, p_model text, p_in int, p_out int) returns numeric
language sql stable
set search_path = ''
as $$
  select coalesce((select (p_in * p.input_per_million + p_out * p.output_per_million) / 1000000
                     from ai.model_prices p
                    where p.provider = p_provider and starts_with(regexp_replace(p_model, '^(gemini/|openrouter/)', ''), p.model_prefix)
                    order by length(p.model_prefix) desc limit 1), 0)
$$;

-- Records one model call, priced, and takes its cost from the credit balance.
create or replace function ai.record_usage(p_user uuid, p_feature text, p_run text, p_step text, p_model text, p_provider text, p_kind text,
  p_in int, p_out int, p_latency_ms int, p_ok boolean) returns numeric
language plpgsql
set search_path = ''
as $$
declare
  cost numeric := ai.call_cost(p_provider, p_model, p_in, p_out);
begin
  insert into ai.usage (user_id, feature, run_id, step, model, provider, kind, tokens_in, tokens_out, latency_ms, cost_usd, ok)
  values (p_user, p_feature, p_run, p_step, p_model, p_provider, p_kind, p_in, p_out, p_latency_ms, cost, p_ok);
  update ai.credits set balance_usd = balance_usd - cost, updated_at = now() where id = true;
  return cost;
end
$$;

-- Usage for GET /api/usage: the calls in a window, filtered, with totals.
create or replace function ai.usage_report(p_from timestamptz, p_to timestamptz, p_feature text, p_model text, p_user uuid, p_limit int)
returns jsonb
language sql stable
set search_path = ''
as $$
  with calls as (
    select u.* from ai.usage u
     where u.created_at >= coalesce(p_from, '-infinity') and u.created_at < coalesce(p_to, 'infinity')
       and (p_feature is null or u.feature = p_feature) and (p_model is null or u.model = p_model) and (p_user is null or u.user_id = p_user)
  )
  select jsonb_build_object(
    'totals', (select jsonb_build_object('calls', count(*), 'tokens_in', coalesce(sum(tokens_in), 0), 'tokens_out', coalesce(sum(tokens_out), 0),
                                         'cost_usd', coalesce(sum(cost_usd), 0)) from calls),
    'by_model', coalesce((select jsonb_agg(m order by m.cost_usd desc) from (
        select model, provider, count(*) as calls, sum(tokens_in) as tokens_in, sum(tokens_out) as tokens_out, sum(cost_usd) as cost_usd
          from calls group by model, provider) m), '[]'),
    'by_feature', coalesce((select jsonb_agg(f order by f.cost_usd desc) from (
        select feature, count(*) as calls, sum(tokens_in) as tokens_in, sum(tokens_out) as tokens_out, sum(cost_usd) as cost_usd
          from calls group by feature) f), '[]'),
    'items', coalesce((select jsonb_agg(c order by c.created_at desc) from (
        select id, user_id, feature, run_id, step, model, provider, kind, tokens_in, tokens_out, latency_ms, cost_usd, ok, created_at
          from calls order by created_at desc limit coalesce(p_limit, 100)) c), '[]'))
$$;

-- 5. Credits --------------------------------------------------------------------------

create table ai.credits (
  id boolean primary key default true check (id),
  balance_usd numeric not null default 0,
  updated_at timestamptz not null default now()
);
insert into ai.credits default values;
alter table ai.credits enable row level security;
create policy credits_read on ai.credits for select to authenticated using (true);
grant select on ai.credits to authenticated, service_role;
grant update on ai.credits to service_role;

revoke execute on function ai.call_cost(text, text, int, int), ai.record_usage(uuid, text, text, text, text, text, text, int, int, int, boolean),
  ai.usage_report(timestamptz, timestamptz, text, text, uuid, int) from public;
grant execute on function ai.call_cost(text, text, int, int) to authenticated, service_role;
grant execute on function ai.record_usage(uuid, text, text, text, text, text, text, int, int, int, boolean) to service_role;
grant execute on function ai.usage_report(timestamptz, timestamptz, text, text, uuid, int) to authenticated, service_role;
