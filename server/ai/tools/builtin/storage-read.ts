// storage_read: read an object through the storage layer as the user (storage policies apply).
import { actorContext } from '../../actor.ts';
import { requiredString } from '../arguments.ts';
import type { BuiltinTool } from '../types.ts';

const TEXT = /^(text\/|application\/(json|xml|javascript|x-ndjson)|image\/svg\+xml)/;

export const storageRead: BuiltinTool = {
  name: 'storage_read',
  description: 'Read an object from storage, or list a folder, as the signed-in user: storage policies apply. Text comes back as text, other types as a description.',
  inputSchema: {
    type: 'object',
    properties: {
      bucket: { type: 'string' },
      path: { type: 'string', description: 'Object path; a folder ending in / lists it' },
      max_chars: { type: 'integer', minimum: 1 },
    },
    required: ['bucket', 'path'],
    additionalProperties: false,
  },
  override: 'parameters',
  run: async ({ args, caller, services }) => {
    const bucket = requiredString(args.bucket, 'bucket');
    const path = typeof args.path === 'string' ? args.path : '';
    const as = actorContext(caller.actor);
    if (path === '' || path.endsWith('/')) return services.storage.list(as, bucket, path, 100);
    const largest = await services.settings.number('DEFAULT_MAX_RESULT_CHARS');
    const maxChars = typeof args.max_chars === 'number' && args.max_chars > 0 ? Math.min(Math.floor(args.max_chars), largest) : largest;
    const file = await services.storage.read(as, bucket, path, Math.min(maxChars * 4, 10 * 1024 * 1024));
    if (!TEXT.test(file.contentType)) return { content_type: file.contentType, size: file.size, note: 'not text: its bytes are not shown' };
    const text = file.bytes.toString('utf8');
    return { content_type: file.contentType, size: file.size, text: text.slice(0, maxChars), truncated: file.truncated || text.length > maxChars };
  },
};
