// A run's variables asked for by the starter's inputs (its config's
// `inputs`: name, type, description, required), one field each; a number,
// a switch or JSON where the input says so.
import type { ChangeEvent } from 'react';

export type Input = { name: string; type?: 'string' | 'number' | 'boolean' | 'json'; description?: string; required?: boolean };

/** The starter's inputs, if its config lists any well-formed ones. */
export function inputsOf(config: Record<string, unknown> | undefined): Input[] {
  const list = config?.inputs;
  return Array.isArray(list) ? list.filter((i): i is Input => !!i && typeof i === 'object' && typeof (i as Input).name === 'string' && (i as Input).name !== '') : [];
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
