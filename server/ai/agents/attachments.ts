// Images and files sent with a run's message (/api/v1's `image_url` and
// `file` parts): their bytes in storage (bucket ai-attachments, sql/0108),
// named on the run's user message, and sent to the model as content parts
// beside the text (data URLs: the vendor fetches nothing). A resumed run
// reads them back, so its model reads the same message.
import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import type { InProcessStorage } from '../../storage/in-process.ts';
import { PROJECT_CALLER } from '../actor.ts';
import type { AiCalls } from '../calls.ts';

export const ATTACHMENT_BUCKET = 'ai-attachments';
/** At most this many images and files in one message, each at most ATTACHMENT_MAX_BYTES. */
export const ATTACHMENTS_MAX = 8;
export const ATTACHMENT_MAX_BYTES = 5 * 1024 * 1024;
/** All of one message's together. */
export const ATTACHMENTS_MAX_TOTAL_BYTES = 20 * 1024 * 1024;

/** An attachment as the message names it. */
export type Attachment = { type: 'image' | 'file'; bucket: string; path: string; mime: string; bytes: number; filename?: string | undefined; detail?: 'auto' | 'low' | 'high' | undefined };
/** An attachment with its bytes. */
export type Loaded = Attachment & { data: Buffer };
/** An attachment as a request brings it, before it is stored. */
export type Incoming = Omit<Attachment, 'bucket' | 'path' | 'bytes'> & { data: Buffer };

type Part = OpenAI.Chat.Completions.ChatCompletionContentPart;

/** The user's message as the model reads it: the text, then each image and file as a data URL. */
export function userContent(text: string, loaded: Loaded[]): string | Part[] {
  if (loaded.length === 0) return text;
  const url = (a: Loaded) => `data:${a.mime};base64,${a.data.toString('base64')}`;
  return [
    ...(text ? [{ type: 'text' as const, text }] : []),
    ...loaded.map((a): Part => (a.type === 'image'
      ? { type: 'image_url', image_url: { url: url(a), ...(a.detail ? { detail: a.detail } : {}) } }
      : { type: 'file', file: { file_data: url(a), ...(a.filename ? { filename: a.filename } : {}) } })),
  ];
}

export function attachmentStore(calls: AiCalls, storage: InProcessStorage) {
  return {
    /** Stores a message's attachments under its session (bytes first, then the row that names them). */
    save: async (sessionId: string, incoming: Incoming[]): Promise<Loaded[]> => {
      if (incoming.length === 0) return [];
      await calls.asService('select ai.ensure_attachment_bucket()', []);
      const folder = `${sessionId}/${randomUUID()}`;
      return Promise.all(incoming.map(async (a, n) => {
        const path = `${folder}/${n + 1}${a.filename ? `-${a.filename.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)}` : ''}`;
        await storage.write(PROJECT_CALLER, ATTACHMENT_BUCKET, path, a.data, a.mime, false);
        return { ...a, bucket: ATTACHMENT_BUCKET, path, bytes: a.data.length };
      }));
    },
    /** Names them on the run's user message (once, while it runs). */
    attach: async (runId: string, loaded: Loaded[]): Promise<void> => {
      const refs: Attachment[] = loaded.map(({ data: _data, ...ref }) => ref);
      await calls.asService('select ai.set_message_attachments($1, $2)', [runId, JSON.stringify(refs)]);
    },
    /** The run's user message's attachments with their bytes (a resumed run's). */
    ofRun: async (runId: string): Promise<Loaded[]> => {
      const [row] = await calls.asService<{ attachments: Attachment[] }>(`select attachments from ai.session_messages where run_id = $1 and role = 'user' order by id limit 1`, [runId]);
      return Promise.all((row?.attachments ?? []).map(async (a) => ({ ...a, data: (await storage.read(PROJECT_CALLER, a.bucket, a.path, ATTACHMENT_MAX_BYTES)).bytes })));
    },
    /** Removes a deleted session's attachments (their rows and bytes). */
    removeSession: async (sessionId: string): Promise<void> => {
      const rows = await calls.asService<{ name: string }>(`select name from storage.objects where bucket_id = $1 and name like $2 order by name limit 10000`, [ATTACHMENT_BUCKET, `${sessionId}/%`]);
      for (let i = 0; i < rows.length; i += 500) await storage.remove(PROJECT_CALLER, ATTACHMENT_BUCKET, rows.slice(i, i + 500).map((r) => r.name));
    },
  };
}

export type AttachmentStore = ReturnType<typeof attachmentStore>;
