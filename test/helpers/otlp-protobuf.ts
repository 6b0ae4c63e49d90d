// Reads an OTLP/HTTP protobuf trace export (opentelemetry-proto trace/v1
// ExportTraceServiceRequest) into the shape of its JSON mapping, as a
// collector would: ids in hex, nanoseconds as decimal strings, 64-bit
// integers as numbers. Strict: a field the proto does not have, or a field
// on the wrong wire type, is an error, so an encoding mistake surfaces here.

type Kind = 'string' | 'hex' | 'base64' | 'uint' | 'int64' | 'bool' | 'double' | 'fixed64' | 'fixed32' | Schema;
type Schema = { [field: number]: [name: string, kind: Kind, repeated?: 'repeated'] };

const KEY_VALUE: Schema = {};
const ANY_VALUE: Schema = {};
Object.assign(KEY_VALUE, { 1: ['key', 'string'], 2: ['value', ANY_VALUE] });
Object.assign(ANY_VALUE, {
  1: ['stringValue', 'string'], 2: ['boolValue', 'bool'], 3: ['intValue', 'int64'], 4: ['doubleValue', 'double'],
  5: ['arrayValue', { 1: ['values', ANY_VALUE, 'repeated'] }], 6: ['kvlistValue', { 1: ['values', KEY_VALUE, 'repeated'] }], 7: ['bytesValue', 'base64'],
});
const ATTRIBUTES = ['attributes', KEY_VALUE, 'repeated'] as const;
const SPAN: Schema = {
  1: ['traceId', 'hex'], 2: ['spanId', 'hex'], 3: ['traceState', 'string'], 4: ['parentSpanId', 'hex'], 5: ['name', 'string'], 6: ['kind', 'uint'],
  7: ['startTimeUnixNano', 'fixed64'], 8: ['endTimeUnixNano', 'fixed64'], 9: [...ATTRIBUTES], 10: ['droppedAttributesCount', 'uint'],
  11: ['events', { 1: ['timeUnixNano', 'fixed64'], 2: ['name', 'string'], 3: [...ATTRIBUTES], 4: ['droppedAttributesCount', 'uint'] }, 'repeated'],
  12: ['droppedEventsCount', 'uint'],
  13: ['links', { 1: ['traceId', 'hex'], 2: ['spanId', 'hex'], 3: ['traceState', 'string'], 4: [...ATTRIBUTES], 5: ['droppedAttributesCount', 'uint'], 6: ['flags', 'fixed32'] }, 'repeated'],
  14: ['droppedLinksCount', 'uint'], 15: ['status', { 2: ['message', 'string'], 3: ['code', 'uint'] }], 16: ['flags', 'fixed32'],
};
const REQUEST: Schema = {
  1: ['resourceSpans', {
    1: ['resource', { 1: [...ATTRIBUTES], 2: ['droppedAttributesCount', 'uint'] }],
    2: ['scopeSpans', { 1: ['scope', { 1: ['name', 'string'], 2: ['version', 'string'], 3: [...ATTRIBUTES], 4: ['droppedAttributesCount', 'uint'] }], 2: ['spans', SPAN, 'repeated'], 3: ['schemaUrl', 'string'] }, 'repeated'],
    3: ['schemaUrl', 'string'],
  }, 'repeated'],
};

const WIRE: Record<string, number> = { string: 2, hex: 2, base64: 2, uint: 0, int64: 0, bool: 0, double: 1, fixed64: 1, fixed32: 5 };

function message(buf: Buffer, schema: Schema, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let pos = 0;
  const varint = (): bigint => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (pos >= buf.length) throw new Error(`${path}: a varint runs past the end`);
      const b = buf[pos++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  };
  while (pos < buf.length) {
    const key = Number(varint());
    const field = key >>> 3;
    const wire = key & 7;
    const spec = schema[field];
    if (!spec) throw new Error(`${path}: field ${field} is not in the proto`);
    const [name, kind, repeated] = spec;
    const expected = typeof kind === 'string' ? WIRE[kind]! : 2;
    if (wire !== expected) throw new Error(`${path}.${name}: wire type ${wire}, the proto says ${expected}`);
    let value: unknown;
    if (wire === 2) {
      const length = Number(varint());
      if (pos + length > buf.length) throw new Error(`${path}.${name}: length ${length} runs past the end`);
      const bytes = buf.subarray(pos, (pos += length));
      value = kind === 'string' ? bytes.toString('utf8') : kind === 'hex' ? bytes.toString('hex') : kind === 'base64' ? bytes.toString('base64') : message(bytes, kind as Schema, `${path}.${name}`);
    } else if (wire === 0) {
      const v = varint();
      value = kind === 'bool' ? v !== 0n : kind === 'int64' ? Number(BigInt.asIntN(64, v)) : Number(v);
    } else if (wire === 1) {
      value = kind === 'double' ? buf.readDoubleLE(pos) : buf.readBigUInt64LE(pos).toString();
      pos += 8;
    } else {
      value = buf.readUInt32LE(pos);
      pos += 4;
    }
    if (repeated) ((out[name] ??= []) as unknown[]).push(value);
    else out[name] = value;
  }
  return out;
}

/** An ExportTraceServiceRequest in its JSON mapping's shape. */
export function decodeTraceRequest(body: Buffer): Record<string, unknown> {
  return message(body, REQUEST, 'ExportTraceServiceRequest');
}
