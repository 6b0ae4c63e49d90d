// Helpers for realtime tests: supabase-js clients on a chosen protocol
// version, channels awaited until subscribed, and inboxes that wait for what
// a callback receives.
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { TestPlatform } from './platform.ts';

export type Vsn = '1.0.0' | '2.0.0';

export function client(p: TestPlatform, vsn: Vsn, key = p.keys.anonKey): SupabaseClient {
  return createClient(p.url, key, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { vsn, heartbeatIntervalMs: 5000 },
  });
}

/** A signed-up user's client (auto-confirm is on in tests), with its id and token. */
export async function userClient(p: TestPlatform, vsn: Vsn, email: string): Promise<{ sb: SupabaseClient; id: string; token: string }> {
  const sb = client(p, vsn);
  const { data, error } = await sb.auth.signUp({ email, password: 'correct horse battery' });
  if (error || !data.session || !data.user) throw new Error(`sign-up failed: ${error?.message}`);
  await sb.realtime.setAuth(data.session.access_token);
  return { sb, id: data.user.id, token: data.session.access_token };
}

/** Subscribes and resolves on SUBSCRIBED; rejects with the server's reason otherwise. */
export function subscribed(channel: RealtimeChannel, timeoutMs = 10_000): Promise<RealtimeChannel> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('subscribe timed out')), timeoutMs);
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') {
        clearTimeout(timer);
        resolve(channel);
      } else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT' || status === 'CLOSED') {
        clearTimeout(timer);
        reject(err ?? new Error(status));
      }
    });
  });
}

/** Collects what a callback receives; `next` waits for the first item (seen or to come) that matches. */
export class Inbox<T> {
  readonly items: T[] = [];
  private waiters: Array<{ match: (item: T) => boolean; resolve: (item: T) => void }> = [];

  readonly push = (item: T): void => {
    this.items.push(item);
    this.waiters = this.waiters.filter((w) => {
      if (!w.match(item)) return true;
      w.resolve(item);
      return false;
    });
  };

  next(match: (item: T) => boolean = () => true, timeoutMs = 10_000): Promise<T> {
    const seen = this.items.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nothing matching arrived within ${timeoutMs} ms (got ${JSON.stringify(this.items).slice(0, 500)})`)), timeoutMs);
      this.waiters.push({ match, resolve: (item) => (clearTimeout(timer), resolve(item)) });
    });
  }

  /** Waits until `count` items have arrived. */
  async count(count: number, timeoutMs = 10_000): Promise<T[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.items.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} items, got ${this.items.length}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.items;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type Frame = { join_ref: string | null; ref: string | null; topic: string; event: string; payload: any };

/** A raw socket speaking vsn 2.0.0 (or 1.0.0), with an inbox of decoded frames. */
export async function raw(p: TestPlatform, query: string): Promise<{ ws: WebSocket; frames: Inbox<Frame>; binary: Inbox<Buffer>; send: (f: unknown[]) => void; closed: Promise<number> }> {
  const ws = new WebSocket(`${p.url.replace('http', 'ws')}/realtime/v1/websocket?${query}`);
  const frames = new Inbox<Frame>();
  const binary = new Inbox<Buffer>();
  const v1 = query.includes('vsn=1.0.0');
  ws.on('message', (data, isBinary) => {
    if (isBinary) return binary.push(data as Buffer);
    const parsed = JSON.parse(String(data));
    frames.push(v1 ? parsed : { join_ref: parsed[0], ref: parsed[1], topic: parsed[2], event: parsed[3], payload: parsed[4] });
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const send = (f: unknown[]) => ws.send(JSON.stringify(v1 ? { join_ref: f[0], ref: f[1], topic: f[2], event: f[3], payload: f[4] } : f));
  return { ws, frames, binary, send, closed };
}
