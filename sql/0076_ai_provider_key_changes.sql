-- Every change to the project's provider keys is told to every replica
-- (NOTIFY ai_provider_keys, after commit), however it is made: the API, a
-- migration, a DBA's statement. The model router keeps the keys it has
-- decrypted (server/ai/providers/key-cache.ts) and forgets them when told,
-- so a model call costs no key read, and a changed or deleted key is not
-- used once the notice has arrived.
create or replace function ai.tell_provider_keys_changed() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  perform pg_notify('ai_provider_keys', '');
  return null;
end
$$;
revoke execute on function ai.tell_provider_keys_changed() from public;

create trigger provider_keys_changed after insert or update or delete or truncate on ai.provider_keys
  for each statement execute function ai.tell_provider_keys_changed();
