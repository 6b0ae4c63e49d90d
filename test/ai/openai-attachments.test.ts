// /api/v1 with images and files in the last message (issue 47, item 13):
// `image_url` parts (data URLs, and http(s) URLs read through the outbound
// guard) and `file` parts reach the model as parts of the user's message;
// their bytes are kept in storage (bucket ai-attachments) and named on the
// run's message, so a run taken up again sends the model the same message;
// they are bounded in size, count and type. Driven by the official `openai`
// SDK and the Vercel AI SDK against the scripted vendor server.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText } from 'ai';
import OpenAI from 'openai';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// A 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const PNG_URL = `data:image/png;base64,${PNG.toString('base64')}`;
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n');

type Part = { type: string; text?: string; image_url?: { url: string; detail?: string }; file?: { file_data: string; filename?: string } };

describe('OpenAI-compatible endpoint: images and files', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let images: http.Server;
  let imagesUrl: string;
  let ann: string;
  const { json, post, api } = aiApi(() => p);
  const client = () => new OpenAI({ baseURL: `${p.url}/api/v1`, apiKey: ann, maxRetries: 0 });
  const userParts = (i: number) => (vendor.chats()[i]!.body.messages as Array<{ role: string; content: string | Part[] }>).filter((m) => m.role === 'user').at(-1)!.content;

  before(async () => {
    vendor = await startVendorServer();
    // A web server on this machine: reachable only because the test allows 127.0.0.1 (no other private address).
    images = http.createServer((req, res) => {
      if (req.url === '/cat.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'));
    });
    await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
    imagesUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    p = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1/32' });
    await storeOpenAiKey(p);
    ann = (await signUp(p, 'ann-attachments@example.com')).access_token;
    await json(await post(ann, '/agents', { name: 'eyes', model: 'gpt-4.1-mini' }), 201);
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
    images.close();
  });

  it('sends an image and a file to the model beside the text, and keeps their bytes in storage', async () => {
    vendor.reset();
    vendor.script({ text: 'A tiny picture and a PDF.' });
    const { data, response } = await client().chat.completions.create({
      model: 'agent/eyes',
      messages: [{ role: 'user', content: [
        { type: 'text', text: 'What are these?' },
        { type: 'image_url', image_url: { url: PNG_URL, detail: 'low' } },
        { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF.toString('base64')}`, filename: 'note.pdf' } },
      ] }],
    }).withResponse();
    assert.equal(data.choices[0]!.message.content, 'A tiny picture and a PDF.');
    assert.deepEqual(userParts(0), [
      { type: 'text', text: 'What are these?' },
      { type: 'image_url', image_url: { url: PNG_URL, detail: 'low' } },
      { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF.toString('base64')}`, filename: 'note.pdf' } },
    ]);
    const session = response.headers.get('x-session-id')!;
    const { rows } = await p.adminPool.query<{ attachments: Array<{ type: string; bucket: string; path: string; mime: string; bytes: number; filename?: string }> }>(
      `select attachments from ai.session_messages where session_id = $1 and role = 'user'`, [session]);
    const named = rows[0]!.attachments;
    assert.deepEqual(named.map((a) => [a.type, a.bucket, a.mime, a.bytes, a.filename ?? null]), [['image', 'ai-attachments', 'image/png', PNG.length, null], ['file', 'ai-attachments', 'application/pdf', PDF.length, 'note.pdf']]);
    assert.ok(named.every((a) => a.path.startsWith(`${session}/`)), 'kept under the session');
    // The bytes are in storage, not in the row.
    const stored = await fetch(`${p.url}/storage/v1/object/ai-attachments/${named[0]!.path}`, { headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` } });
    assert.deepEqual(Buffer.from(await stored.arrayBuffer()), PNG);
    const ownRead = await fetch(`${p.url}/storage/v1/object/ai-attachments/${named[0]!.path}`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${ann}` } });
    assert.equal(ownRead.status, 404, 'no policy lets a user at the bucket itself');
    assert.doesNotMatch(JSON.stringify(rows), /iVBOR/, 'no bytes in the row');
    const listed = await json<Array<{ role: string; attachments?: unknown }>>(await api(ann, `/sessions/${session}/messages`), 200);
    assert.deepEqual(listed[0]!.attachments, [{ type: 'image', mime: 'image/png', bytes: PNG.length }, { type: 'file', mime: 'application/pdf', bytes: PDF.length, filename: 'note.pdf' }]);
    // Deleting the session deletes its attachments too.
    await json(await api(ann, `/sessions/${session}`, { method: 'DELETE' }), 200);
    const left = await p.adminPool.query<{ n: number }>(`select count(*)::int as n from storage.objects where bucket_id = 'ai-attachments' and name like $1`, [`${session}/%`]);
    assert.equal(left.rows[0]!.n, 0);
    assert.equal((await fetch(`${p.url}/storage/v1/object/ai-attachments/${named[0]!.path}`, { headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` } })).status, 404);
  });

  it('reads a remote image through the outbound guard, and refuses a private address', async () => {
    vendor.reset();
    vendor.script({ text: 'A cat.' });
    await client().chat.completions.create({ model: 'agent/eyes', messages: [{ role: 'user', content: [{ type: 'text', text: 'And this?' }, { type: 'image_url', image_url: { url: `${imagesUrl}/cat.png` } }] }] });
    assert.deepEqual(userParts(0), [{ type: 'text', text: 'And this?' }, { type: 'image_url', image_url: { url: PNG_URL } }], 'sent to the model as the bytes read');
    await assert.rejects(client().chat.completions.create({ model: 'agent/eyes', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://169.254.169.254/latest/meta-data.png' } }] }] }),
      (e: InstanceType<typeof OpenAI.APIError>) => e.status === 400 && /could not be fetched: .*private address/.test(e.message));
    await assert.rejects(client().chat.completions.create({ model: 'agent/eyes', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `${imagesUrl}/fake.png` } }] }] }),
      (e: InstanceType<typeof OpenAI.APIError>) => e.status === 400 && /its bytes are not image\/png/.test(e.message), 'bytes that are not the image their type says');
  });

  it('keeps a message\'s image for the rest of its run: the model reads it again after a client tool\'s result', async () => {
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'call_i1', name: 'zoom', arguments: {} }] }, { text: 'Zoomed.' });
    const tools = [{ type: 'function' as const, function: { name: 'zoom', parameters: { type: 'object', properties: {} } } }];
    const question = { role: 'user' as const, content: [{ type: 'text' as const, text: 'Zoom in' }, { type: 'image_url' as const, image_url: { url: PNG_URL } }] };
    const asked = await client().chat.completions.create({ model: 'agent/eyes', messages: [question], tools });
    await client().chat.completions.create({ model: 'agent/eyes', messages: [question, asked.choices[0]!.message, { role: 'tool', tool_call_id: 'call_i1', content: 'done' }], tools });
    assert.deepEqual(userParts(1), [{ type: 'text', text: 'Zoom in' }, { type: 'image_url', image_url: { url: PNG_URL } }], 'read back from storage');
  });

  it('takes an image from the Vercel AI SDK', async () => {
    const pgbase = createOpenAICompatible({ name: 'pgbase', baseURL: `${p.url}/api/v1`, apiKey: ann });
    vendor.reset();
    vendor.script({ text: 'One pixel.' });
    const { text } = await generateText({ model: pgbase('agent/eyes'), maxRetries: 0, messages: [{ role: 'user', content: [{ type: 'text', text: 'Describe' }, { type: 'image', image: new Uint8Array(PNG), mediaType: 'image/png' }] }] });
    assert.equal(text, 'One pixel.');
    const parts = userParts(0) as Part[];
    assert.equal(parts[1]!.image_url!.url, PNG_URL);
  });

  it('bounds images and files in count, size and type, in OpenAI\'s body', async () => {
    const refused = async (content: unknown, status: number, message: RegExp) => {
      const res = await fetch(`${p.url}/api/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${ann}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'agent/eyes', messages: [{ role: 'user', content }] }) });
      const body = (await res.json()) as { error: { message: string } };
      assert.equal(res.status, status, JSON.stringify(body));
      assert.match(body.error.message, message);
    };
    const image = { type: 'image_url', image_url: { url: PNG_URL } };
    await refused(Array(9).fill(image), 400, /at most 8 images and files/);
    await refused([{ type: 'image_url', image_url: { url: `data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}` } }], 400, /PNG, JPEG, GIF or WebP/);
    await refused([{ type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from('not a png').toString('base64')}` } }], 400, /its bytes are not image\/png/);
    await refused([{ type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.concat([PNG, Buffer.alloc(6 * 1024 * 1024)]).toString('base64')}` } }], 413, /larger than 5 MB/);
    await refused([{ type: 'file', file: { file_id: 'file-abc' } }], 400, /file_id is not supported/);
    await refused([{ type: 'file', file: { file_data: `data:application/x-msdownload;base64,${Buffer.from('MZ').toString('base64')}` } }], 400, /PDF, plain text/);
    await refused([{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }], 400, /input_audio are not supported/);
    const { rows } = await p.adminPool.query<{ n: number }>(`select count(*)::int as n from storage.objects where bucket_id = 'ai-attachments'`);
    assert.equal(rows[0]!.n, 3, 'nothing refused was stored (the earlier tests keep three)');
  });
});
