// storage_read: read an object through the storage layer as the user (storage policies apply).
import type { BuiltinTool } from './index.ts';

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
};
