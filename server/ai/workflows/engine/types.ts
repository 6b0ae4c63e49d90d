// The engine's vocabulary: a graph, a block's handler and what it gets and
// gives, and the events a run reports (the stream's schema).
import type { ModelRouter } from '../../providers/router.ts';
import type { Sandbox } from '../../runtime/sandbox/index.ts';
import type { InProcessRest } from '../../../rest/in-process.ts';
import type { InProcessStorage } from '../../../storage/in-process.ts';
import type { Settings } from '../../settings/accessor.ts';
import type { Actor } from '../../actor.ts';

export type Block = { id: string; type: string; config: Record<string, unknown>; position?: unknown };
export type Edge = { source: string; target: string };
export type Graph = { blocks: Block[]; edges: Edge[] };

/** What a block handler may use: its resolved config, the run's variables, and the platform's services. */
export type BlockContext = {
  block: Block;
  /** The block's config with every reference resolved. */
  config: Record<string, unknown>;
  variables: Record<string, unknown>;
  /** Outputs of the blocks that ran before this one, by id. */
  outputs: ReadonlyMap<string, unknown>;
  /** Outgoing edges' targets, for blocks that choose a branch. */
  targets: string[];
  signal: AbortSignal;
  services: EngineServices;
  /** Lines for the block's log (console output, notes). */
  log: (line: string) => void;
  /** Streams a piece of the block's text to the run's stream (content_delta). */
  delta: (text: string) => void;
  /** Where this call of the block sits in the run: its id, inside the split items that led to it (`split[2]/call`); the same across its retries. */
  callPath: string;
  /** Runs a sub-graph (a split's path) for one item; used by split. */
  runPath: (start: string[], item: unknown, index: number) => Promise<unknown>;
  /** Tells the run's followers the block waits (block_waiting) before it parks. */
  waiting: (what: WaitingFor) => void;
};

/** What a waiting block waits for: a time, an event, or an approval of its child run. */
export type WaitingFor = { until?: string | null; event?: string; approval_id?: string };

/** A handler's answer: its output, and for a branching block which targets to take (others are skipped). */
export type BlockResult = { output: unknown; take?: string[] };

export type BlockHandler = {
  /** Runs the block; throws Failure (or any error) to fail it. */
  run: (ctx: BlockContext) => Promise<BlockResult>;
  /** Whether the block's downstream is run by the block itself (split) rather than by the scheduler. */
  ownsDownstream?: boolean;
};

export type EngineServices = {
  models: ModelRouter;
  settings: Settings;
  /** Outbound HTTP with the SSRF guard. */
  fetch: (url: string, init: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number; signal: AbortSignal }) => Promise<{ status: number; headers: Record<string, string>; body: string }>;
  /** This project's Row REST and storage, in-process, as a given caller. */
  rest: InProcessRest;
  storage: InProcessStorage;
  /** The code sandbox and its limits (SANDBOX_TIMEOUT_MS, SANDBOX_MEMORY_MB). */
  sandbox: { pool: Sandbox; timeoutMs: number; memoryMb: number };
  /** Whom the run acts as: a user, or explicitly the project. */
  actor: Actor;
  executionId: string;
  /** Whether this run was taken up again (after a crash or a wait): blocks look for what they began before. */
  resumed: boolean;
  /** Agent and orchestration runs for the agent and orchestration blocks. */
  agents: WorkflowAgents;
  /** A wait block's wait at its place, begun once and read back (sql/0103). */
  wait: (w: WaitSpec & { place: string }) => Promise<WaitState>;
};

/** A wait: for a time (duration or until: due), or for an event, until its timeout (due; null: none). */
export type WaitSpec = { kind: 'duration' | 'until' | 'event'; due: Date | null; event: string | null; onTimeout: 'continue' | 'fail' };
/** How a wait stands: still waiting, or how it ended (an event's data with it). */
export type WaitState = { status: 'waiting' | 'elapsed' | 'received' | 'timed_out' | 'cancelled'; due_at: string | null; data: unknown; settled_at: string | null };

/** What the agent and orchestration blocks ask of the agents surface (server/ai/workflow-agents.ts). */
export type WorkflowAgents = {
  agent: (call: AgentBlockCall) => Promise<unknown>;
  orchestration: (call: AgentBlockCall) => Promise<unknown>;
};
/** place: the block's place in the run (its callPath), naming its child run or its stored steps; resumed: look for them. */
export type AgentBlockCall = {
  actor: Actor; executionId: string; blockId: string; place: string; resumed: boolean; config: Record<string, unknown>; message: string; signal: AbortSignal;
  delta: (text: string) => void; waiting: (what: WaitingFor) => void;
};

// A block fails by throwing Failure (failures.ts): its message is worded for the run log and the caller.

export type RunEvent =
  | { type: 'run_started'; execution_id: string; version: number | null }
  // Its process died and another took it up from the blocks it had settled (workflows/resumed.ts).
  | { type: 'resumed'; execution_id: string; settled_blocks: number; resumes: number }
  | { type: 'block_started'; block_id: string; block_type: string }
  | { type: 'block_completed'; block_id: string; block_type: string; output: unknown; duration_ms: number }
  | { type: 'block_skipped'; block_id: string; block_type: string }
  | { type: 'block_failed'; block_id: string; block_type: string; error: string; continued: boolean }
  | { type: 'content_delta'; block_id: string; delta: string }
  // The block waits (a wait block, or an approval in its child run); the run holds no process meanwhile.
  | ({ type: 'block_waiting'; block_id: string; block_type: string } & WaitingFor)
  | { type: 'run_completed'; execution_id: string; output: unknown };
