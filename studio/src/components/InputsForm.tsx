// Values asked for one field each (a number, a switch or JSON where the
// input says so): a workflow run's variables from its starter's `inputs`
// (name, type, description, required), or a custom tool's arguments from
// the top-level properties of its input schema.
import type { ChangeEvent } from 'react';

export type Input = { name: string; type?: 'string' | 'number' | 'boolean' | 'json'; description?: string; required?: boolean };

/** The starter's inputs, if its config lists any well-formed ones. */
export function inputsOf(config: Record<string, unknown> | undefined): Input[] {
  const list = config?.inputs;
  return Array.isArray(list) ? list.filter((i): i is Input => !!i && typeof i === 'object' && typeof (i as Input).name === 'string' && (i as Input).name !== '') : [];
}

/** A JSON Schema object's top-level properties as inputs (anything but text, numbers and switches as JSON). */
export function inputsOfSchema(schema: unknown): Input[] {
  const s = schema && typeof schema === 'object' ? (schema as { properties?: unknown; required?: unknown }) : {};
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  const properties = s.properties && typeof s.properties === 'object' ? Object.entries(s.properties as Record<string, { type?: unknown; description?: unknown }>) : [];
  return properties.map(([name, p]) => {
    const t = Array.isArray(p?.type) ? p.type[0] : p?.type;
    const type = t === 'string' ? 'string' : t === 'number' || t === 'integer' ? 'number' : t === 'boolean' ? 'boolean' : 'json';
    return { name, type, required: required.has(name), ...(typeof p?.description === 'string' ? { description: p.description } : {}) };
  });
}

/** The typed values of the form's texts (a number parsed, JSON parsed); throws with the input's name when one does not parse or a required one is empty. */
export function variablesOf(inputs: Input[], texts: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const i of inputs) {
    const text = texts[i.name] ?? '';
    if (text === '' && i.type !== 'boolean') {
      if (i.required) throw new Error(`${i.name} is required`);
      continue;
    }
    if (i.type === 'number') {
      if (!Number.isFinite(Number(text))) throw new Error(`${i.name} must be a number`);
      out[i.name] = Number(text);
    } else if (i.type === 'boolean') out[i.name] = text === 'true';
    else if (i.type === 'json') {
      try {
        out[i.name] = JSON.parse(text);
      } catch {
        throw new Error(`${i.name} must be JSON`);
      }
    } else out[i.name] = text;
  }
  return out;
}

export function InputsForm({ inputs, texts, onChange }: { inputs: Input[]; texts: Record<string, string>; onChange: (texts: Record<string, string>) => void }) {
  const set = (name: string) => (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
    onChange({ ...texts, [name]: e.target.type === 'checkbox' ? String((e.target as HTMLInputElement).checked) : e.target.value });
  return (
    <div className="stack">
      {inputs.map((i) => {
        const label = `${i.name}${i.required ? ' (required)' : ''}`;
        const hint = i.description ? <span className="small muted">{i.description}</span> : null;
        if (i.type === 'boolean') return <label key={i.name} className="inline-group"><input type="checkbox" checked={texts[i.name] === 'true'} onChange={set(i.name)} />{label}{hint}</label>;
        if (i.type === 'json') return <label key={i.name}>{label}<textarea className="mono" rows={2} value={texts[i.name] ?? ''} onChange={set(i.name)} />{hint}</label>;
        return <label key={i.name}>{label}<input type={i.type === 'number' ? 'number' : 'text'} required={i.required} value={texts[i.name] ?? ''} onChange={set(i.name)} />{hint}</label>;
      })}
    </div>
  );
}
