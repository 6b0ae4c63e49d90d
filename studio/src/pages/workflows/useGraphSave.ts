// The draft graph saved as it is edited: a change is sent (PUT …/graph) half
// a second after the last one, whole; put_graph's verdict comes back as the
// problem to pin on the block or edge it names, and nothing is saved until
// the graph is valid again (the server changes nothing on an error). What
// the server fills in (a webhook's id and secret) is taken into the draft.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ai, ApiFailure } from '../../api/client.ts';
import { graphOf, pinOf, type Edge, type Graph } from './graph.ts';

export type SaveState = 'saved' | 'unsaved' | 'saving' | 'invalid';
export type Problem = { message: string; block?: string; edge?: Edge };

export function useGraphSave(workflowId: string, graph: Graph, loaded: Graph | undefined, amend: (g: Graph) => void) {
  const [state, setState] = useState<SaveState>('saved');
  const [problem, setProblem] = useState<Problem | null>(null);
  const saved = useRef<Graph | undefined>(loaded);
  const pending = useRef<Promise<void>>(Promise.resolve());
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const latest = useRef(graph);
  latest.current = graph;

  const save = useCallback(async () => {
    clearTimeout(timer.current);
    const sending = latest.current;
    if (sending === saved.current) return;
    setState('saving');
    const res = await ai.PUT('/api/workflows/{id}/graph', { params: { path: { id: workflowId } }, body: sending });
    if (res.response.ok && res.data) {
      saved.current = sending;
      setProblem(null);
      const answered = graphOf(res.data);
      // Configs the server completed (a webhook's id and secret) become the draft's, without an undo step.
      const filled = sending.blocks.some((b, i) => JSON.stringify(b.config) !== JSON.stringify(answered.blocks[i]?.config));
      if (filled && latest.current === sending) {
        const next = { ...sending, blocks: sending.blocks.map((b, i) => ({ ...b, config: answered.blocks[i]?.config ?? b.config })) };
        saved.current = next;
        amend(next);
      }
      setState(latest.current === sending ? 'saved' : 'unsaved');
    } else {
      const failure = new ApiFailure(res.response.status, res.error);
      setProblem({ message: failure.message, ...pinOf(failure.message) });
      setState('invalid');
    }
  }, [workflowId, amend]);

  useEffect(() => {
    if (!loaded) return;
    if (saved.current === undefined) saved.current = loaded;
    clearTimeout(timer.current);
    if (graph === saved.current) {
      // Back to what the server holds (an undo of an invalid change): nothing to send, nothing wrong.
      setProblem(null);
      setState('saved');
      return;
    }
    setState('unsaved');
    clearTimeout(timer.current);
    timer.current = setTimeout(() => { pending.current = pending.current.then(save); }, 500);
    return () => clearTimeout(timer.current);
  }, [graph, loaded, save]);

  /** Saves now (before a run or a deploy); resolves true when the saved graph is the one shown. */
  const flush = useCallback(async () => {
    clearTimeout(timer.current);
    pending.current = pending.current.then(save);
    await pending.current;
    return saved.current === latest.current;
  }, [save]);

  return { state, problem, flush };
}
