-- AI surface: context handlers (spec 2.10, 4.15): one query across several
-- knowledge bases, fitted to a token budget, kept for later reading.
--
--   1. ai.context_handlers   a stored result; it belongs to the caller who made it
--                            (a user's, or the project's when made with the service-role key)

create table ai.context_handlers (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid() references auth.users on delete cascade,
  query text not null,
  -- The request as sent: knowledge_bases [{id, top_k}], max_context_tokens.
  request jsonb not null check (jsonb_typeof(request) = 'object'),
  -- The whole answer, as POST returned it.
  result jsonb not null check (jsonb_typeof(result) = 'object'),
  created_at timestamptz not null default now()
);
create index context_handlers_owner on ai.context_handlers (owner_id, created_at desc);
alter table ai.context_handlers enable row level security;
-- Like sessions: a result is its maker's alone.
create policy context_handlers_own on ai.context_handlers for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
grant select, insert, delete on ai.context_handlers to authenticated;
grant select, insert, update, delete on ai.context_handlers to service_role;
