// The sources of the knowledge bases a caller can see, as MCP resources:
// `pgbase://knowledge-bases/<kb id>/sources/<source id>`, read as the
// source's extracted markdown (cut at 2,000,000 characters, saying so). The
// caller's right to the source is checked in SQL (RLS) before the bytes are
// read as the server.
import type { RequestContext } from '../../../db/as-role.ts';
import { PROJECT_CALLER } from '../actor.ts';
import { Failure } from '../failures.ts';
import { SOURCE_BUCKET } from '../sources/store.ts';
import type { McpServices } from './tools.ts';

const URI = /^pgbase:\/\/knowledge-bases\/([0-9a-f-]{36})\/sources\/([0-9a-f-]{36})$/;
const MAX_CHARS = 2_000_000;

export const sourceUri = (kbId: string, sourceId: string) => `pgbase://knowledge-bases/${kbId}/sources/${sourceId}`;

export async function listSourceResources(caller: RequestContext, s: McpServices) {
  return (await s.store.knowledgeBaseSources(caller)).map((r) => ({
    uri: sourceUri(r.kb_id, r.source_id), name: r.name, mimeType: 'text/markdown',
    description: `${r.name} (${r.extension}) in the knowledge base "${r.kb_name}", as extracted markdown`,
  }));
}

export async function readSourceResource(caller: RequestContext, s: McpServices, uri: string) {
  const m = URI.exec(uri);
  const path = m ? await s.store.markdownPath(caller, m[1]!, m[2]!) : undefined;
  if (!path) throw new Failure(`No resource ${uri}: list the resources again`);
  const file = await s.storage.read(PROJECT_CALLER, SOURCE_BUCKET, path, MAX_CHARS * 4);
  let text = file.bytes.toString('utf8');
  if (file.truncated || text.length > MAX_CHARS) text = `${text.slice(0, MAX_CHARS)}\n\n[cut at ${MAX_CHARS} characters]`;
  return { contents: [{ uri, mimeType: 'text/markdown', text }] };
}
