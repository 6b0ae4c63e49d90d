-- Every foreign key whose referenced rows can be deleted (on delete cascade
-- or set null) has an index leading with its columns. Without one,
-- PostgreSQL finds the referencing rows by reading the whole table, once per
-- deleted row: deleting a session with 5 runs among 400,000 session
-- messages took 168 ms (one scan of ai.session_messages per run), and the
-- run routes that read a run's messages by run_id (GET of a run, a worker's
-- answer, a resume) scanned the same table each time (36 ms; 0.3 ms with
-- the index). Lookup keys to the platform's own catalogues (block types,
-- strategies, setting categories), whose rows are never deleted, need none.
-- test/sql/61_foreign_keys_indexed.sql keeps it so.

-- Growing with use, read by run.
create index session_messages_run on ai.session_messages (run_id, id) where run_id is not null;
create index session_messages_orchestration_run on ai.session_messages (orchestration_run_id, id) where orchestration_run_id is not null;
create index orchestration_runs_session on ai.orchestration_runs (session_id) where session_id is not null;

-- Set null when an agent, orchestration, member or hook goes.
create index agent_runs_agent on ai.agent_runs (agent_id) where agent_id is not null;
create index sessions_agent on ai.sessions (agent_id) where agent_id is not null;
create index sessions_orchestration on ai.sessions (orchestration_id) where orchestration_id is not null;
create index orchestration_runs_orchestration on ai.orchestration_runs (orchestration_id) where orchestration_id is not null;
create index orchestration_delegations_agent on ai.orchestration_delegations (agent_id) where agent_id is not null;
create index orchestration_delegations_entity on ai.orchestration_delegations (entity_id) where entity_id is not null;
create index agent_run_approvals_hook on ai.agent_run_approvals (hook_id) where hook_id is not null;

-- Deleted with their user, workflow, tool, sub-agent, bucket or source.
create index agent_tools_sub_agent on ai.agent_tools (sub_agent_id) where sub_agent_id is not null;
create index agent_tools_tool on ai.agent_tools (tool_id) where tool_id is not null;
create index copilot_sessions_owner on ai.copilot_sessions (owner_id);
create index copilot_sessions_workflow on ai.copilot_sessions (workflow_id);
create index kb_graph_errors_kb on ai.kb_graph_errors (kb_id);
create index kb_graph_errors_kb_source on ai.kb_graph_errors (kb_source_id);
create index mfa_factors_user on auth.mfa_factors (user_id);
create index mfa_challenges_factor on auth.mfa_challenges (factor_id);
create index resumable_uploads_bucket on storage.resumable_uploads (bucket_id);
