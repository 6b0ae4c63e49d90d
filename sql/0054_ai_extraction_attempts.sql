-- An extraction whose process died is a failed attempt, not a retry into the
-- same crash (containment item 2).
--
-- Parsers now run in threads with heap and time limits, so a bad file fails
-- its source with a message. Should the whole process die mid-extraction all
-- the same (a native crash, an out-of-memory kill), graphile-worker would run
-- the job again once its lock expired, and the same file would bring the
-- next process down too. So:
--   1. ai.begin_extraction     pending -> extracting as before; a run found
--                              still `extracting` was begun by a process
--                              that never finished it: failed, with a
--                              message, and the job does nothing
--   2. ai.release_extraction   extracting -> pending, for a job that hands
--                              its run back to be tried again (a transient
--                              error it caught), so the retry may begin it
-- Restates ai.begin_extraction (0037).

-- 1 ---------------------------------------------------------------------------
create or replace function ai.begin_extraction(p_source uuid, p_run int) returns boolean
language plpgsql volatile
set search_path = ''
as $$
begin
  update ai.sources set extraction_status = 'extracting', extraction_started_at = now(), pages_done = 0
   where id = p_source and extraction_run = p_run and extraction_status = 'pending';
  if found then return true; end if;
  update ai.sources
     set extraction_status = 'failed', extracted_at = null,
         extraction_message = 'The process reading this file stopped before it finished (it may have run out of memory); it was not tried again. Re-extract to try once more'
   where id = p_source and extraction_run = p_run and extraction_status = 'extracting';
  if found then perform ai.announce_extraction(p_source, 'extraction_finished'); end if;
  return false;
end
$$;

-- 2 ---------------------------------------------------------------------------
create or replace function ai.release_extraction(p_source uuid, p_run int) returns boolean
language sql volatile
set search_path = ''
as $$
  with moved as (
    update ai.sources set extraction_status = 'pending'
     where id = p_source and extraction_run = p_run and extraction_status = 'extracting' returning 1)
  select exists (select 1 from moved)
$$;
revoke execute on function ai.release_extraction(uuid, int) from public;
grant execute on function ai.release_extraction(uuid, int) to service_role;
