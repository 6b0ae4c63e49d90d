-- Supabase's pgmq_public (issue 50, item 2): the queue functions clients call
-- through /rest/v1, over pgmq's of sql/0119.

-- pgmq_public: Supabase's wrappers for clients through /rest/v1 (exposed by
-- adding the schema to REST_SCHEMAS or pgrst.db_schemas, as Supabase's
-- self-hosted stack does). They run as the caller: the queue tables' grants
-- and RLS policies decide what each role may do.
create schema if not exists pgmq_public;
grant usage on schema pgmq_public to anon, authenticated, service_role;

create or replace function pgmq_public.pop(queue_name text) returns setof pgmq.message_record
language plpgsql set search_path = ''
as $$ begin return query select * from pgmq.pop(queue_name := queue_name); end $$;
comment on function pgmq_public.pop(text) is 'Retrieves and locks the next message from the specified queue.';

create or replace function pgmq_public.send(queue_name text, message jsonb, sleep_seconds integer default 0) returns setof bigint
language plpgsql set search_path = ''
as $$ begin return query select * from pgmq.send(queue_name := queue_name, msg := message, delay := sleep_seconds); end $$;
comment on function pgmq_public.send(text, jsonb, integer) is 'Sends a message to the specified queue, optionally delaying its availability by a number of seconds.';

create or replace function pgmq_public.send_batch(queue_name text, messages jsonb[], sleep_seconds integer default 0) returns setof bigint
language plpgsql set search_path = ''
as $$ begin return query select * from pgmq.send_batch(queue_name := queue_name, msgs := messages, delay := sleep_seconds); end $$;
comment on function pgmq_public.send_batch(text, jsonb[], integer) is 'Sends a batch of messages to the specified queue, optionally delaying their availability by a number of seconds.';

create or replace function pgmq_public.archive(queue_name text, message_id bigint) returns boolean
language plpgsql set search_path = ''
as $$ begin return pgmq.archive(queue_name := queue_name, msg_id := message_id); end $$;
comment on function pgmq_public.archive(text, bigint) is 'Archives a message by moving it from the queue to a permanent archive.';

create or replace function pgmq_public.delete(queue_name text, message_id bigint) returns boolean
language plpgsql set search_path = ''
as $$ begin return pgmq.delete(queue_name := queue_name, msg_id := message_id); end $$;
comment on function pgmq_public.delete(text, bigint) is 'Permanently deletes a message from the specified queue.';

create or replace function pgmq_public.read(queue_name text, sleep_seconds integer, n integer) returns setof pgmq.message_record
language plpgsql set search_path = ''
as $$ begin return query select * from pgmq.read(queue_name := queue_name, vt := sleep_seconds, qty := n); end $$;
comment on function pgmq_public.read(text, integer, integer) is 'Reads up to "n" messages from the specified queue with an optional "sleep_seconds" (visibility timeout).';
