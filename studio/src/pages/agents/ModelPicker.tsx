// A model from the router's catalogue (GET /api/ai-provider-keys/models),
// grouped by provider, those without a stored key said so; any other name
// may be typed (a model the router routes by its prefix).
import { useId } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';

export function ModelPicker({ value, onChange }: { value: string; onChange: (model: string) => void }) {
  const catalogue = useAsync(() => must(ai.GET('/api/ai-provider-keys/models')), []);
  const list = useId();
  return (
    <label>Model
      <input value={value} onChange={(e) => onChange(e.target.value)} list={list} placeholder="the default model" className="mono" />
      <datalist id={list}>
        {catalogue.value?.map((m) => <option key={`${m.provider}/${m.model}`} value={m.model}>{`${m.provider}${m.has_key ? '' : ' (no key)'} · $${m.input_per_million}/$${m.output_per_million} per M`}</option>)}
      </datalist>
    </label>
  );
}
