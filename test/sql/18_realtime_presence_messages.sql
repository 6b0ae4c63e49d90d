-- Presence lives in realtime.presence (one entry per connection and
-- channel); channel messages in realtime.messages, whose policies decide
-- private channels through realtime.channel_access() and realtime.topic().
begin;
select plan(13);

insert into realtime.nodes (id) values ('00000000-0000-4000-8000-000000000001'), ('00000000-0000-4000-8000-000000000002');
select realtime.track('00000000-0000-4000-8000-000000000001', 'socket-a', 'socket-a/1', 'lobby', false, 'ann', '{"status": "online"}');
select realtime.track('00000000-0000-4000-8000-000000000002', 'socket-b', 'socket-b/1', 'lobby', false, 'ann', '{"status": "phone"}');
select realtime.track('00000000-0000-4000-8000-000000000001', 'socket-a', 'socket-a/1', 'lobby', false, 'ann', '{"status": "away"}');
select realtime.track('00000000-0000-4000-8000-000000000001', 'socket-a', 'socket-a/2', 'lobby', true, 'ann', '{"status": "private"}');

select is((select jsonb_array_length(realtime.presence_state('lobby', false) -> 'ann' -> 'metas')), 2, 'one entry per connection under a key: re-tracking replaces, a second connection adds');
select is((select realtime.presence_state('lobby', false) -> 'ann' -> 'metas' -> 0 ->> 'status'), 'phone', 'entries keep the order they were tracked in');
select ok((select realtime.presence_state('lobby', false) -> 'ann' -> 'metas' -> 1 ? 'phx_ref'), 'each entry carries its phx_ref');
select is((select realtime.presence_state('lobby', true) -> 'ann' -> 'metas' -> 0 ->> 'status'), 'private', 'the private channel of a name is a different channel');

select realtime.untrack('00000000-0000-4000-8000-000000000001', 'socket-a/2');
select is((select count(*)::int from realtime.presence where socket = 'socket-a'), 1, 'untrack ends one channel''s entry');
select realtime.release('00000000-0000-4000-8000-000000000001', 'socket-a');
select is((select count(*)::int from realtime.presence where node = '00000000-0000-4000-8000-000000000001'), 0, 'releasing a closed socket ends every channel of the connection');
delete from realtime.nodes where id = '00000000-0000-4000-8000-000000000002';
select is(realtime.presence_state('lobby', false), '{}'::jsonb, 'a reaped node takes its presences with it');
select is((select others from realtime.node_heartbeat('00000000-0000-4000-8000-000000000003')), 1, 'a heartbeat counts the other live nodes');

-- Private channels.
create policy members_read on realtime.messages for select to authenticated
  using (realtime.topic() = 'team:' || (auth.jwt() ->> 'team') and extension in ('broadcast', 'presence'));
create policy members_write on realtime.messages for insert to authenticated
  with check (realtime.topic() = 'team:' || (auth.jwt() ->> 'team') and extension = 'broadcast');
select tests.authenticate_as('11111111-1111-4111-8111-111111111111', '{"team": "red"}');
select is((select row(broadcast_read, broadcast_write, presence_read, presence_write)::text from realtime.channel_access('team:red')), '(t,t,t,f)',
  'a member reads broadcast and presence and writes broadcast on their team''s topic');
select is((select row(broadcast_read, broadcast_write, presence_read, presence_write)::text from realtime.channel_access('team:blue')), '(f,f,f,f)',
  'and nothing on another team''s');
select is(realtime.topic(), 'team:blue', 'realtime.topic() is the channel being checked');
select lives_ok($$select realtime.send('{"hello": 1}', 'greet', 'team:red', true)$$, 'realtime.send passes the member''s insert policy');
select tests.clear_authentication();
select is((select count(*)::int from realtime.messages where topic = 'team:red' and event = 'greet' and private), 1, 'and the message is recorded for the channel');

select * from finish();
rollback;
