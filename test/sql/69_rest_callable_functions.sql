-- Which functions /rpc may call: every input named, or a single unnamed one
-- of bytea, json, jsonb, text or xml (sql/0105, PostgREST v12's rule).
begin;
select plan(7);

create function public.cf_named(a int, b text) returns int language sql as $$ select a $$;
create function public.cf_none() returns int language sql as $$ select 1 $$;
create function public.cf_text(text) returns text language sql as $$ select $1 $$;
create function public.cf_json(jsonb) returns jsonb language sql as $$ select $1 $$;
create function public.cf_int(int) returns int language sql as $$ select $1 $$;
create function public.cf_two(text, text) returns text language sql as $$ select $1 $$;
create function public.cf_out(a int, out doubled int) returns int language sql as $$ select a * 2 $$;

select ok(platform.rest_callable('public.cf_named(int, text)'::regprocedure), 'named parameters');
select ok(platform.rest_callable('public.cf_none()'::regprocedure), 'no parameters');
select ok(platform.rest_callable('public.cf_text(text)'::regprocedure), 'one unnamed text parameter');
select ok(platform.rest_callable('public.cf_json(jsonb)'::regprocedure), 'one unnamed jsonb parameter');
select ok(not platform.rest_callable('public.cf_int(int)'::regprocedure), 'not one unnamed integer parameter');
select ok(not platform.rest_callable('public.cf_two(text, text)'::regprocedure), 'not two unnamed parameters');
select ok(platform.rest_callable('public.cf_out(int)'::regprocedure), 'an OUT parameter is not an input');

select * from finish();
rollback;
