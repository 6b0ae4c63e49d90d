// Hosted document parsers as extraction engines (extraction_model values
// `unstructured`, `docling`, `llamaparse`), each an adapter over the
// parser's own HTTP API at a base URL from the configuration:
//   unstructured  POST {UNSTRUCTURED_API_URL}/general/v0/general (files), elements with page numbers
//   docling       POST {DOCLING_API_URL}/v1/convert/file (files), markdown
//   llamaparse    POST {LLAMAPARSE_API_URL}/api/v1/parsing/upload, the job polled, its JSON result by page
// The hosts are the operator's choice, so these calls skip the SSRF guard.
// An engine that is not configured, or fails, throws Failure: the
// job then runs the local chain and says so on the source.
import type { Config } from '../../../config.ts';
import { htmlToMarkdown, markdownElements, markdownToText } from './markdown.ts';
import type { Element, Extracted } from './types.ts';
import { Failure } from '../../failures.ts';


export const HOSTED_ENGINES = ['unstructured', 'docling', 'llamaparse'] as const;
type Engine = (typeof HOSTED_ENGINES)[number];
type File = { bytes: Buffer; filename: string; contentType: string };

const TIMEOUT_MS = 5 * 60_000;
const POLL_MS = 1000;

async function call(url: string, init: RequestInit, what: string): Promise<unknown> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) }).catch((err: Error) => {
    throw new Failure(`${what} could not be reached: ${err.message}`);
  });
  const text = await res.text();
  if (!res.ok) throw new Failure(`${what} answered HTTP ${res.status}: ${text.slice(0, 200)}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Failure(`${what} answered something other than JSON`);
  }
}

const form = (field: string, f: File) => {
  const body = new FormData();
  body.append(field, new Blob([new Uint8Array(f.bytes)], { type: f.contentType }), f.filename);
  return body;
};

function fromPages(engine: string, pages: string[]): Extracted {
  const markdown = pages.filter(Boolean).join('\n\n');
  return { engine, markdown, text: markdownToText(markdown), pages: pages.map(markdownToText), elements: pages.flatMap((p, i) => markdownElements(p, i + 1)), images: [] };
}

type UnstructuredElement = { type?: string; text?: string; metadata?: { page_number?: number; text_as_html?: string } };

function fromElements(list: UnstructuredElement[]): Extracted {
  const byPage = new Map<number, string[]>();
  const elements: Element[] = [];
  for (const e of list) {
    const page = e.metadata?.page_number ?? 1;
    const text = (e.text ?? '').trim();
    let md: string;
    let type: Element['type'] = 'paragraph';
    if (e.type === 'Title') {
      md = `## ${text}`;
      type = 'heading';
    } else if (e.type === 'ListItem') {
      md = `- ${text}`;
      type = 'list';
    } else if (e.type === 'Table') {
      md = e.metadata?.text_as_html ? htmlToMarkdown(e.metadata.text_as_html) : text;
      type = 'table';
    } else if (e.type === 'Image' || e.type === 'Figure') {
      md = text ? `_${text}_` : '';
      type = 'figure';
    } else md = text;
    if (!md) continue;
    elements.push({ page, type, text: type === 'heading' ? text : md, ...(type === 'heading' ? { level: 2 } : {}) });
    byPage.set(page, [...(byPage.get(page) ?? []), md]);
  }
  const last = Math.max(1, ...byPage.keys());
  const pagesMd = Array.from({ length: last }, (_, i) => (byPage.get(i + 1) ?? []).join('\n\n'));
  return { ...fromPages('unstructured', pagesMd), elements };
}

export function hostedEngines(config: Pick<Config, 'UNSTRUCTURED_API_URL' | 'UNSTRUCTURED_API_KEY' | 'DOCLING_API_URL' | 'DOCLING_API_KEY' | 'LLAMAPARSE_API_URL' | 'LLAMAPARSE_API_KEY'>) {
  const base = (url: string) => url.replace(/\/$/, '');
  const engines: Record<Engine, (f: File) => Promise<Extracted>> = {
    unstructured: async (f) => {
      if (!config.UNSTRUCTURED_API_KEY) throw new Failure('the unstructured engine is not configured (set UNSTRUCTURED_API_KEY)');
      const list = await call(`${base(config.UNSTRUCTURED_API_URL)}/general/v0/general`,
        { method: 'POST', headers: { 'unstructured-api-key': config.UNSTRUCTURED_API_KEY, accept: 'application/json' }, body: form('files', f) }, 'The unstructured API');
      if (!Array.isArray(list)) throw new Failure('The unstructured API answered without elements');
      return fromElements(list as UnstructuredElement[]);
    },
    docling: async (f) => {
      if (!config.DOCLING_API_URL) throw new Failure('the docling engine is not configured (set DOCLING_API_URL)');
      const body = form('files', f);
      body.append('to_formats', 'md');
      const answer = (await call(`${base(config.DOCLING_API_URL)}/v1/convert/file`,
        { method: 'POST', headers: { accept: 'application/json', ...(config.DOCLING_API_KEY ? { 'x-api-key': config.DOCLING_API_KEY } : {}) }, body }, 'Docling')) as { document?: { md_content?: unknown }; status?: string; errors?: unknown[] };
      if (typeof answer?.document?.md_content !== 'string') throw new Failure(`Docling could not convert the file (${answer?.status ?? 'no markdown'})`);
      return fromPages('docling', [answer.document.md_content]);
    },
    llamaparse: async (f) => {
      if (!config.LLAMAPARSE_API_KEY) throw new Failure('the llamaparse engine is not configured (set LLAMAPARSE_API_KEY)');
      const root = base(config.LLAMAPARSE_API_URL);
      const auth = { authorization: `Bearer ${config.LLAMAPARSE_API_KEY}`, accept: 'application/json' };
      const job = (await call(`${root}/api/v1/parsing/upload`, { method: 'POST', headers: auth, body: form('file', f) }, 'LlamaParse')) as { id?: unknown };
      if (typeof job?.id !== 'string') throw new Failure('LlamaParse answered without a job id');
      const deadline = Date.now() + TIMEOUT_MS;
      for (;;) {
        const state = (await call(`${root}/api/v1/parsing/job/${encodeURIComponent(job.id)}`, { headers: auth }, 'LlamaParse')) as { status?: string; error_message?: string };
        if (state?.status === 'SUCCESS') break;
        if (state?.status === 'ERROR' || state?.status === 'CANCELED') throw new Failure(`LlamaParse failed: ${state.error_message ?? state.status}`);
        if (Date.now() > deadline) throw new Failure('LlamaParse did not finish in time');
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      const result = (await call(`${root}/api/v1/parsing/job/${encodeURIComponent(job.id)}/result/json`, { headers: auth }, 'LlamaParse')) as { pages?: Array<{ page?: number; md?: string; text?: string }> };
      if (!Array.isArray(result?.pages)) throw new Failure('LlamaParse answered without pages');
      return fromPages('llamaparse', result.pages.map((p) => p.md ?? p.text ?? ''));
    },
  };
  return {
    isHosted: (model: string): model is Engine => (HOSTED_ENGINES as readonly string[]).includes(model),
    extract: (model: Engine, f: File) => engines[model](f),
  };
}

export type HostedEngines = ReturnType<typeof hostedEngines>;
