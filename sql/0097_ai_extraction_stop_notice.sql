-- AI surface: an extraction in progress hears at once that it must stop.
-- A run checks its source between pages (ai.extraction_progress), but a page
-- can take long (a hostile one on purpose), so when a source that is being
-- extracted is cancelled, queued again (a new run) or deleted, the process
-- carrying the run is told after commit and stops its parser thread at once
-- (server/ai/sources/stops.ts; the thread is terminated if it does not yield).
-- A run that ends by itself (extracted, failed, handed back) is not told.
--
--   ai.notify_extraction_stop()   trigger on ai.sources: NOTIFY ai_extraction_stop, '<source id>:<run>'

create or replace function ai.notify_extraction_stop() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if old.extraction_status = 'extracting'
     and (tg_op = 'DELETE' or new.extraction_run <> old.extraction_run or new.extraction_status = 'cancelled') then
    perform pg_notify('ai_extraction_stop', old.id::text || ':' || old.extraction_run::text);
  end if;
  return null;
end
$$;

create trigger extraction_stop after update of extraction_status, extraction_run or delete on ai.sources
  for each row execute function ai.notify_extraction_stop();
