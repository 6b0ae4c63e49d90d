-- AI surface: compaction of long sessions (spec 4.9, settings category compaction).
--
-- When a session's history would not fit the model's context, the older
-- messages are summarised (by DEFAULT_COMPACTION_MODEL) and the summary kept
-- on the session: later runs send the summary, then only the messages after
-- summary_through. The messages themselves are kept as they were.

alter table ai.sessions
  add column summary text,
  -- The last message the summary covers (ai.session_messages.id).
  add column summary_through bigint,
  add column compacted_at timestamptz,
  add column compactions int not null default 0;
