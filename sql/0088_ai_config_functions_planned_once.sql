-- AI surface: a knowledge base's retrieval settings, resolved on every
-- search and every indexing step, in plpgsql, planned once per connection
-- instead of on every call (why: sql/0083, sql/CONVENTIONS.md "Security").
-- ai.resolve_config calls itself for every key of a strategy's defaults, and
-- ai.setting_json for every `$SETTING` in them: as `language sql` with a SET
-- clause each of those calls was planned anew, and ai.kb_retrieval_config
-- cost about 0.9 ms of PostgreSQL's time a call (`pg_stat_user_functions`,
-- bench:retrieval). Same arguments, same answers; privileges stay as they
-- were (create or replace keeps them).

-- A configuration with each "$KEY" string replaced by that setting's value (its JSON type from the registry).
create or replace function ai.resolve_config(config jsonb) returns jsonb
language plpgsql stable
set search_path = ''
as $$
begin
  return case jsonb_typeof(config)
    when 'object' then coalesce((select jsonb_object_agg(e.key, ai.resolve_config(e.value)) from jsonb_each(config) e), '{}')
    when 'array' then coalesce((select jsonb_agg(ai.resolve_config(e.value) order by e.ordinality) from jsonb_array_elements(config) with ordinality e), '[]')
    when 'string' then case when config #>> '{}' like '$%' then coalesce(ai.setting_json(substr(config #>> '{}', 2)), config) else config end
    else config end;
end
$$;

-- A setting's value as JSON of its registered type; null for a secret or an unknown key.
create or replace function ai.setting_json(p_key text) returns jsonb
language plpgsql stable
set search_path = ''
as $$
begin
  return (
    select case when r.type in ('integer', 'number') then to_jsonb(x.v::numeric)
                when r.type = 'boolean' then to_jsonb(x.v::boolean)
                else to_jsonb(x.v) end
      from ai.settings_registry r
      left join ai.setting_overrides o on o.key = r.key
      cross join lateral (select coalesce(o.value, r.default_value) as v) x
     where r.key = p_key and r.type <> 'secret');
end
$$;

-- A knowledge base's retrieval settings: its strategy's defaults, resolved, under its own.
create or replace function ai.kb_retrieval_config(p_kb uuid) returns jsonb
language plpgsql stable
set search_path = ''
as $$
begin
  return (
    select ai.resolve_config(s.default_retrieval_config) || k.retrieval_config
      from ai.knowledge_bases k join ai.kb_strategies s on s.name = k.strategy
     where k.id = p_kb);
end
$$;
