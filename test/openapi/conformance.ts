// Answers checked against the document: an openapi-fetch middleware that
// validates every JSON answer against the schema the document gives for its
// path, method and status (Ajv, JSON Schema 2020-12, OpenAPI 3.1's dialect).
// An answer whose status the document does not list is a finding too.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Middleware } from 'openapi-fetch';

type Responses = Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
type Doc = { paths: Record<string, Record<string, { responses: Responses }>>; components: { schemas: Record<string, unknown>; responses?: Responses } };

export function conformance(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const findings: string[] = [];
  const checked: string[] = [];
  const middleware: Middleware = {
    async onResponse({ request, schemaPath, response }) {
      const method = request.method.toLowerCase();
      const where = `${request.method} ${schemaPath} ${response.status}`;
      const stated = doc.paths[schemaPath]?.[method]?.responses[String(response.status)] as (Responses[string] & { $ref?: string }) | undefined;
      // An error answer is named from components.responses (server/openapi/document.ts).
      const answer = stated?.$ref ? doc.components.responses?.[stated.$ref.replace('#/components/responses/', '')] : stated;
      if (!answer) return void findings.push(`${where}: status not in the document`);
      const type = response.headers.get('content-type') ?? '';
      const media = /^application\/json/.test(type) ? 'application/json' : /^text\/event-stream/.test(type) ? 'text/event-stream' : null;
      if (!media) return;
      const ref = answer.content?.[media]?.schema.$ref;
      if (!ref) return void findings.push(`${where}: ${media} answered where the document says none`);
      const validate = ajv.getSchema(`openapi${ref}`)!;
      const text = await response.clone().text();
      // A stream's events are its `data:` lines (OpenAI's streams end with `data: [DONE]`, which is not an event).
      const bodies: unknown[] = media === 'application/json'
        ? [JSON.parse(text)]
        : [...text.matchAll(/^data: (.*)$/gm)].map((m) => m[1]!).filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as unknown);
      if (bodies.length === 0) findings.push(`${where}: an empty stream`);
      for (const body of bodies) {
        checked.push(where);
        if (!validate(body)) findings.push(`${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 300)}`);
      }
    },
  };
  return { middleware, findings, checked };
}
