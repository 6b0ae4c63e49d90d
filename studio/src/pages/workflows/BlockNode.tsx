// A block on the canvas: its label and id, its state in the current run, and
// the validation error that names it, pinned under it. Text only: ids and
// labels come from users.
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import type { BlockState } from './useWorkflowRun.ts';

export type BlockNodeData = { label: string; blockId: string; trigger: boolean; run?: BlockState | undefined; problem?: string | undefined; change?: 'added' | 'removed' | 'changed' | undefined };
export type BlockNodeType = Node<BlockNodeData, 'block'>;

const STATE_TEXT: Record<BlockState['state'], string> = { waiting: 'waiting', running: 'running', succeeded: 'succeeded', failed: 'failed', skipped: 'skipped', parked: 'paused (a wait)' };

export function BlockNode({ data, selected }: NodeProps<BlockNodeType>) {
  const classes = ['block-node', data.run ? `run-${data.run.state}` : '', data.problem ? 'has-problem' : '', data.change ? `change-${data.change}` : '', selected ? 'selected' : ''];
  return (
    <div className={classes.filter(Boolean).join(' ')} data-block={data.blockId}>
      {!data.trigger && <Handle type="target" position={Position.Left} />}
      <div className="block-label">{data.label}</div>
      <div className="block-id mono small">{data.blockId}</div>
      {data.run && <div className="block-state small" data-state={data.run.state}>{STATE_TEXT[data.run.state]}{data.run.durationMs !== undefined ? ` · ${Math.round(data.run.durationMs)} ms` : ''}</div>}
      {data.change && <div className="block-change small">{data.change}</div>}
      {data.problem && <div className="block-problem small" role="note">{data.problem}</div>}
      <Handle type="source" position={Position.Right} />
    </div>
  );
}
