-- Row REST: which functions /rpc may call (issue 47, item 2), as PostgREST
-- v12 decides what enters its schema cache.
--
-- A function is callable when every input parameter is named, or when its
-- only unnamed one is of a type a whole request body can be: bytea, json,
-- jsonb, text or xml (POST /rpc/f with {"": ...}, or a raw body). Two or
-- more unnamed parameters, or one of another type (f(int), f(boolean)),
-- leave it out: /rpc/f then answers 404 PGRST202, and among overloads only
-- the callable ones are candidates, so {"": "test"} with f(bool), f(int)
-- and f(text) calls f(text). The REST layer's catalogue marks functions
-- by this rule (server/rest/catalogue.ts); a computed field's or
-- relationship's function (one unnamed argument of a table's row type)
-- stays usable as one, as in PostgREST. A DBA changes the rule here.
--
--   platform.rest_callable(function)   whether /rpc may call it

create or replace function platform.rest_callable(p_function oid) returns boolean
language sql stable
set search_path = ''
as $$
  select coalesce(count(*) filter (where a.name = '') = 0
                  or (count(*) filter (where a.name = '') = 1
                      and bool_and(a.name <> '' or a.type in ('bytea'::regtype, 'json'::regtype, 'jsonb'::regtype, 'text'::regtype, 'xml'::regtype))), true)
    from pg_catalog.pg_proc p
    cross join lateral unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
                              coalesce(p.proargnames, array_fill(''::text, array[cardinality(coalesce(p.proallargtypes, p.proargtypes::oid[]))])),
                              coalesce(p.proargmodes::text[], array_fill('i'::text, array[cardinality(coalesce(p.proallargtypes, p.proargtypes::oid[]))])))
         as a(type, name, mode)
   where p.oid = p_function and a.mode in ('i', 'b', 'v')
$$;
