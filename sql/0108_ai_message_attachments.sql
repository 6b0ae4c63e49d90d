-- AI surface: images and files in a run's message (issue 47, item 13).
-- An OpenAI client (/api/v1) may send `image_url` and `file` parts beside
-- its text. Their bytes go to storage, as every other file does (bucket
-- ai-attachments, private: no policy lets users at it; the API reads and
-- writes it for them), and the user's message of the run names them, so
-- a run resumed anywhere sends the model the same parts.
--
--   1  session_messages.attachments   [{type, bucket, path, mime, bytes, filename?, detail?}]
--   2  ai.ensure_attachment_bucket()  made on first use
--   3  ai.set_message_attachments(run, attachments)   on the run's user message, once

-- 1 ---------------------------------------------------------------------------
alter table ai.session_messages add column attachments jsonb not null default '[]'
  check (jsonb_typeof(attachments) = 'array' and jsonb_array_length(attachments) <= 16);
comment on column ai.session_messages.attachments is
  'Images and files sent with a user''s message: [{type: image|file, bucket, path, mime, bytes, filename, detail}], their bytes in storage.';

-- 2 ---------------------------------------------------------------------------
create or replace function ai.ensure_attachment_bucket() returns void
language sql volatile
set search_path = ''
as $$ insert into storage.buckets (id, name, public) values ('ai-attachments', 'ai-attachments', false) on conflict (id) do nothing $$;
revoke execute on function ai.ensure_attachment_bucket() from public;
grant execute on function ai.ensure_attachment_bucket() to service_role;

-- 3 ---------------------------------------------------------------------------
-- Only a running run's own user message, only while it names none. As the
-- definer: messages are never updated otherwise (no role has that grant).
create or replace function ai.set_message_attachments(p_run uuid, p_attachments jsonb) returns void
language sql
security definer
set search_path = ''
as $$
  update ai.session_messages m set attachments = p_attachments
   where m.run_id = p_run and m.role = 'user' and m.attachments = '[]'
     and exists (select 1 from ai.agent_runs r where r.id = p_run and r.status = 'running')
$$;
revoke execute on function ai.set_message_attachments(uuid, jsonb) from public;
grant execute on function ai.set_message_attachments(uuid, jsonb) to service_role;
