-- AI surface: the sources' bucket made on first use by two uploads at once.
--
--   ai.ensure_source_bucket   restated: `on conflict do nothing` without a target. With
--                             `on conflict (id)`, two first uploads that passed the id check
--                             together could have the second break the bucket name's unique
--                             index (23505, answered 409; seen once in a full run under load):
--                             a conflict on any unique index is the same bucket, made by the other.

create or replace function ai.ensure_source_bucket() returns void
language sql volatile
set search_path = ''
as $$ insert into storage.buckets (id, name, public) values ('ai-sources', 'ai-sources', false) on conflict do nothing $$;
