// An agent's name, model, system prompt and settings (JSON), saved with PATCH.
import { useState, type FormEvent } from 'react';
import type { components } from '../../api/ai/index.ts';
import { ai, must } from '../../api/client.ts';
import { useToast } from '../../app/toasts.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { ModelPicker } from './ModelPicker.tsx';

export function AgentSettings({ agent, onSaved }: { agent: components['schemas']['Agent']; onSaved: () => void }) {
  const [name, setName] = useState(agent.name);
  const [model, setModel] = useState(agent.model ?? '');
  const [prompt, setPrompt] = useState(agent.system_prompt ?? '');
  const [settings, setSettings] = useState(JSON.stringify(agent.settings ?? {}, null, 2));
  const [error, setError] = useState<Error>();
  const notify = useToast();
  const save = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const parsed = JSON.parse(settings || '{}') as Record<string, unknown>;
      await must(ai.PATCH('/api/agents/{id}', { params: { path: { id: agent.id } }, body: { name, model: model || null, system_prompt: prompt || null, settings: parsed } }));
      setError(undefined);
      notify('Agent saved');
      onSaved();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <form className="stack agent-settings" onSubmit={(e) => void save(e)} aria-label="Agent settings">
      <label>Name<input required value={name} onChange={(e) => setName(e.target.value)} /></label>
      <ModelPicker value={model} onChange={setModel} />
      <label>System prompt<textarea rows={4} value={prompt} onChange={(e) => setPrompt(e.target.value)} /></label>
      <label>Settings (JSON)<textarea className="mono" rows={3} value={settings} onChange={(e) => setSettings(e.target.value)} /></label>
      <ErrorNote error={error} />
      <button type="submit" className="primary">Save agent</button>
    </form>
  );
}
