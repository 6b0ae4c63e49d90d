// Realtime inspector: join a channel as a chosen role (anon, a user, the
// service role), see broadcast, presence and postgres_changes as they
// arrive, send a broadcast. The control plane holds the socket to realtime
// (/api/platform/realtime/<ref>): this page holds no key.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ref } from '../../api/client.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { CodeBlock } from '../../components/CodeBlock.tsx';

type Message = { event: string; payload: unknown; at: string };
type Status = 'idle' | 'joining' | 'joined' | 'left';

export default function RealtimeInspector() {
  const socket = useRef<WebSocket>(null);
  const [status, setStatus] = useState<Status>('idle');
  const [error, setError] = useState<string>();
  const [messages, setMessages] = useState<Message[]>([]);
  const [topic, setTopic] = useState('room-1');
  const [role, setRole] = useState<'anon' | 'authenticated' | 'service_role'>('service_role');
  const [userId, setUserId] = useState('');
  const [isPrivate, setPrivate] = useState(false);
  const [changes, setChanges] = useState({ on: true, schema: 'public', table: '', event: '*' });
  const [event, setEvent] = useState('hello');
  const [payload, setPayload] = useState('{"text": "hi"}');

  useEffect(() => () => socket.current?.close(), []);

  const join = (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setMessages([]);
    socket.current?.close();
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/platform/realtime/${ref()}`);
    socket.current = ws;
    setStatus('joining');
    ws.onopen = () => ws.send(JSON.stringify({
      type: 'join', topic, role, private: isPrivate, ...(role === 'authenticated' ? { user_id: userId } : {}),
      ...(changes.on ? { postgres_changes: [{ event: changes.event, schema: changes.schema, ...(changes.table ? { table: changes.table } : {}) }] } : {}),
    }));
    ws.onmessage = (m) => {
      const data = JSON.parse(String(m.data)) as { type: string; status?: Status | 'error'; message?: string } & Message;
      if (data.type === 'status') {
        if (data.status === 'error') setError(data.message ?? 'The join was refused');
        else if (data.status) setStatus(data.status);
      } else setMessages((list) => [{ event: data.event, payload: data.payload, at: data.at }, ...list].slice(0, 500));
    };
    ws.onclose = () => setStatus((s) => (s === 'joining' ? 'left' : s));
  };
  const send = (e: FormEvent) => {
    e.preventDefault();
    try {
      socket.current?.send(JSON.stringify({ type: 'broadcast', event, payload: JSON.parse(payload) as unknown }));
    } catch (err) {
      setError(`The payload is not JSON: ${(err as Error).message}`);
    }
  };

  return (
    <div className="single">
      <PageHeader title="Realtime inspector"><span className="muted" role="status">{status === 'joined' ? `Joined ${topic}` : status === 'joining' ? 'Joining…' : 'Not joined'}</span></PageHeader>
      <form className="inspector-form" onSubmit={join} aria-label="Join a channel">
        <label>Channel<input required value={topic} onChange={(e) => setTopic(e.target.value)} /></label>
        <label>As
          <select value={role} onChange={(e) => setRole(e.target.value as typeof role)}>
            <option value="anon">anon (the anon key)</option>
            <option value="authenticated">a signed-in user</option>
            <option value="service_role">service_role</option>
          </select>
        </label>
        {role === 'authenticated' && <label>User id<input required value={userId} onChange={(e) => setUserId(e.target.value)} placeholder="a user's uuid" /></label>}
        <label className="inline"><input type="checkbox" checked={isPrivate} onChange={(e) => setPrivate(e.target.checked)} /> Private channel</label>
        <fieldset>
          <legend>Database changes</legend>
          <label className="inline"><input type="checkbox" checked={changes.on} onChange={(e) => setChanges({ ...changes, on: e.target.checked })} /> Listen</label>
          <label>Schema<input value={changes.schema} onChange={(e) => setChanges({ ...changes, schema: e.target.value })} /></label>
          <label>Table<input value={changes.table} placeholder="every table" onChange={(e) => setChanges({ ...changes, table: e.target.value })} /></label>
          <label>Event
            <select value={changes.event} onChange={(e) => setChanges({ ...changes, event: e.target.value })}>{['*', 'INSERT', 'UPDATE', 'DELETE'].map((x) => <option key={x} value={x}>{x}</option>)}</select>
          </label>
        </fieldset>
        <button type="submit" className="primary">Join</button>
        {status === 'joined' && <button type="button" onClick={() => socket.current?.send(JSON.stringify({ type: 'leave' }))}>Leave</button>}
      </form>
      <ErrorNote error={error} />
      {status === 'joined' && (
        <form className="inspector-form" onSubmit={send} aria-label="Send a broadcast">
          <label>Event<input required value={event} onChange={(e) => setEvent(e.target.value)} /></label>
          <label>Payload (JSON)<input value={payload} onChange={(e) => setPayload(e.target.value)} /></label>
          <button type="submit">Send broadcast</button>
        </form>
      )}
      <section aria-label="Messages">
        <h2>Messages <span className="muted small">(newest first)</span></h2>
        <ol className="message-log" aria-live="polite">
          {messages.map((m, i) => (
            <li key={messages.length - i}>
              <span className="muted small">{new Date(m.at).toLocaleTimeString()}</span> <span className="badge">{m.event}</span>
              <CodeBlock className="json" label={`Payload of ${m.event}`}>{JSON.stringify(m.payload, null, 2)}</CodeBlock>
            </li>
          ))}
          {messages.length === 0 && <li className="muted">Nothing yet.</li>}
        </ol>
      </section>
    </div>
  );
}
