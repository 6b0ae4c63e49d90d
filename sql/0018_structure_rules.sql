-- House rules made true everywhere (sql/CONVENTIONS.md; checked by
-- test/sql/19_structure.sql): every table of the platform's schemas has
-- row-level security, even the ones only the server's own login touches, so a
-- grant added by mistake exposes nothing; trigger functions are not callable
-- by the API roles (a trigger does not need EXECUTE to fire).

alter table platform.migrations enable row level security;
alter table platform.mail_outbox enable row level security;
alter table platform.sms_outbox enable row level security;
alter table realtime.nodes enable row level security;
alter table realtime.presence enable row level security;
alter table realtime.relay_payloads enable row level security;
alter table realtime.subscription enable row level security;

revoke execute on function
  storage.check_bucket(), realtime.relay_message(), realtime.relay_presence(), realtime.capture_change(), realtime.sync_capture_on_ddl()
from public, anon, authenticated, service_role;
