// JSON Schemas that callers bring (a response_format's, a custom tool's
// input_schema), compiled with Ajv under bounds: at most 64 KB, nested at
// most 64 deep, no `patternProperties`, and `pattern` is not run (a regular
// expression from a request never runs in the server: it could backtrack for
// minutes). No remote $refs are loaded and unknown keywords are allowed
// (OpenAI's own are).
import { Ajv } from 'ajv';
import { aiErrors } from './errors.ts';

const MAX_SCHEMA_BYTES = 64 * 1024;

/** The schema without what is not checked here (`pattern`), where it is a keyword (not inside const, enum, default or examples). */
function withoutPatterns(node: unknown, what: string, depth = 0): unknown {
  if (depth > 64) throw aiErrors.validation(`${what}: the schema is nested too deeply`);
  if (Array.isArray(node)) return node.map((n) => withoutPatterns(n, what, depth + 1));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'patternProperties') throw aiErrors.validation(`${what}: patternProperties is not supported in a schema`);
    if (k === 'pattern' && typeof v === 'string') continue;
    out[k] = ['const', 'enum', 'default', 'examples'].includes(k) ? v : withoutPatterns(v, what, depth + 1);
  }
  return out;
}

/**
 * A check of values against `schema`: undefined when one matches, else the
 * first problem in words ("/city must be string", `whole` naming the root). Throws a 400 naming
 * `what` for a schema that is too large or cannot be compiled.
 */
export function schemaCheck(schema: Record<string, unknown>, what: string, whole = 'the value'): (value: unknown) => string | undefined {
  if (JSON.stringify(schema).length > MAX_SCHEMA_BYTES) throw aiErrors.validation(`${what}: the schema is larger than 64 KB`);
  let validate: ReturnType<Ajv['compile']>;
  try {
    validate = new Ajv({ strict: false, allErrors: false, validateSchema: true }).compile(withoutPatterns(schema, what) as object);
  } catch (err) {
    throw aiErrors.validation(`${what}: the schema cannot be used: ${(err as Error).message.slice(0, 300)}`);
  }
  return (value) => {
    if (validate(value)) return undefined;
    const first = validate.errors?.[0];
    return first ? `${first.instancePath || whole} ${first.message ?? 'does not match'}` : 'it does not match the schema';
  };
}
