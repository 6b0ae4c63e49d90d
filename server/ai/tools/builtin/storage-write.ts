// storage_write: write an object through the storage layer as the user.
import { actorContext } from '../../actor.ts';
import { requiredString } from '../arguments.ts';
import type { BuiltinTool } from '../types.ts';

export const storageWrite: BuiltinTool = {
  name: 'storage_write',
  description: 'Write a text object to storage as the signed-in user: storage policies and bucket rules apply.',
  inputSchema: {
    type: 'object',
    properties: {
      bucket: { type: 'string' },
      path: { type: 'string' },
      content: { type: 'string' },
      content_type: { type: 'string', default: 'text/plain' },
      upsert: { type: 'boolean', default: false },
    },
    required: ['bucket', 'path', 'content'],
    additionalProperties: false,
  },
  override: 'parameters',
  run: ({ args, caller, services }) => {
    const content = typeof args.content === 'string' ? args.content : requiredString(undefined, 'content');
    const type = typeof args.content_type === 'string' && args.content_type ? args.content_type : 'text/plain';
    return services.storage.write(actorContext(caller.actor), requiredString(args.bucket, 'bucket'), requiredString(args.path, 'path'), Buffer.from(content, 'utf8'), type, args.upsert === true);
  },
};
