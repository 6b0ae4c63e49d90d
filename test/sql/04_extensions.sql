-- Extensions live in schema extensions and resolve unqualified, as Supabase SQL expects.
begin;
select plan(6);

select has_schema('extensions', 'schema extensions exists');
select is((select extnamespace::regnamespace::text from pg_extension where extname = 'pgcrypto'), 'extensions', 'pgcrypto is installed in schema extensions');
select is((select extnamespace::regnamespace::text from pg_extension where extname = 'uuid-ossp'), 'extensions', 'uuid-ossp is installed in schema extensions');
select matches(uuid_generate_v4()::text, '^[0-9a-f-]{36}$', 'uuid_generate_v4() resolves without a schema');

select tests.authenticate_as_anon();
select ok(crypt('secret', gen_salt('bf', 4)) like '$2a$04$%', 'pgcrypto is usable by the API roles');
select is(length(encode(digest('x', 'sha256'), 'hex')), 64, 'digest() resolves without a schema');

select * from finish();
rollback;
