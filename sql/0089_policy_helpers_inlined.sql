-- Policy helpers the planner can inline. ai.owns and ai.can_read (the AI
-- tables' row policies) and storage.foldername, storage.filename and
-- storage.extension (what Supabase apps write in their storage.objects
-- policies) were `language sql` with `set search_path = ''`: a SET clause
-- keeps a function from being inlined, so a policy called it for every row
-- and no index could serve it. Listing agents as a user among 20,000 rows
-- took 60 ms (a sequential scan calling ai.can_read per row); inlined, the
-- policy is `owner_id is null or owner_id = <the caller>` and the owner
-- index answers in 0.6 ms. The bodies are SQL-standard (`begin atomic`):
-- their names are bound when the function is created, not looked up at
-- call time, which is what the SET clause was for. Same arguments, same
-- answers; privileges stay as they were (create or replace keeps them).

-- Whether the caller owns this row (a project resource, owner null, is owned by no user).
create or replace function ai.owns(owner_id uuid) returns boolean
language sql stable
begin atomic
  select owner_id is not null and owner_id = auth.uid();
end;

-- Whether the caller may read this row: a project resource, or their own.
create or replace function ai.can_read(owner_id uuid) returns boolean
language sql stable
begin atomic
  select owner_id is null or owner_id = auth.uid();
end;

-- The folders of an object name: every segment but the last.
create or replace function storage.foldername(name text) returns text[]
language sql immutable
begin atomic
  select (string_to_array(name, '/'))[1:greatest(cardinality(string_to_array(name, '/')) - 1, 0)];
end;

-- The last segment of an object name.
create or replace function storage.filename(name text) returns text
language sql immutable
begin atomic
  select (string_to_array(name, '/'))[cardinality(string_to_array(name, '/'))];
end;

-- What follows the last dot of the file name; '' when there is none.
create or replace function storage.extension(name text) returns text
language sql immutable
begin atomic
  select case when storage.filename(name) like '%.%'
    then (string_to_array(storage.filename(name), '.'))[cardinality(string_to_array(storage.filename(name), '.'))]
    else '' end;
end;
