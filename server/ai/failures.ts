// The AI surface's failure classes (one vocabulary, as openai-agents-js
// keeps one in errors.ts). Everything else thrown is a bug or an outage: a
// job retries it, a route answers 500 without its message.
//
// - Failure: the work cannot be done, and the message says why in words the
//   user or the model may read (a tool refusing a table, a block's bad
//   config, an unreadable file, a limit passed). Jobs end the item failed
//   with this message instead of retrying.
// - Stopped: the work no longer holds (cancelled, removed, re-queued, the
//   server stopping). Not a failure: the job or run ends quietly.
// - HandedOver: the server is stopping and a run that can resume was left
//   running for another process (runs/resume.ts): not an end either.
// - Parked: the run waits on a person and its process let go of it
//   (agents/approvals.ts); a worker takes it up again on the answer. Not an
//   end: its record stays open, and a client follows its events. ForWorker,
//   a Parked: the run was only begun here, a worker carries it.

/** Which isolation limit ended a run in a worker thread. */
export type Limit = 'memory' | 'time' | 'quiet' | 'crash' | 'busy';

export type FailureDetail = {
  /** The workflow block at fault, when a run failed in one. */
  blockId?: string | null;
  /** The isolation limit that ended the work, when one did. */
  limit?: Limit;
  /** Console output of sandboxed code that threw. */
  logs?: string[];
};

/** A failure whose message may be shown to the user or the model. */
export class Failure extends Error {
  readonly detail: FailureDetail;
  constructor(message: string, detail: FailureDetail = {}) {
    super(message);
    this.name = 'Failure';
    this.detail = detail;
  }
}

/** The work no longer holds: cancelled, removed, replaced or stopping. */
export class Stopped extends Error {
  constructor(message = 'stopped') {
    super(message);
    this.name = 'Stopped';
  }
}

/**
 * A run that has not ended but leaves this process: its record stays open for
 * whichever worker carries it on. Not a failure: a span it ends says so
 * (`spanOutcome`, telemetry/spans.ts).
 */
abstract class LeftRunning extends Error {
  readonly runId: string;
  abstract readonly spanOutcome: string;
  constructor(runId: string, message: string, name: string) {
    super(message);
    this.name = name;
    this.runId = runId;
  }
}

/** The server is stopping: the run is left running for another process to resume (sql/0067, 0069). */
export class HandedOver extends LeftRunning {
  readonly spanOutcome = 'handed_over';
  constructor(runId: string) {
    super(runId, 'The server stopped before the run ended; another carries it on', 'HandedOver');
  }
}

/** The run waits on a person, parked: no process carries it until the answer or the deadline (sql/0068). */
export class Parked extends LeftRunning {
  readonly spanOutcome: string = 'parked';
  constructor(runId: string, message = 'The run waits for an approval; a worker carries it on after the answer', name = 'Parked') {
    super(runId, message, name);
  }
}

/**
 * The run was begun here and is carried by a worker (AI_RUN_PLACEMENT=worker,
 * sql/0079): whoever catches it stores the events pushed so far, then lets
 * go of the run (`handOff`: false when it was cancelled meanwhile) and
 * follows it as it follows a parked run.
 */
export class ForWorker extends Parked {
  override readonly spanOutcome = 'to_worker';
  readonly handOff: () => Promise<boolean>;
  constructor(runId: string, handOff: () => Promise<boolean>) {
    super(runId, 'The run is carried by a worker', 'ForWorker');
    this.handOff = handOff;
  }
}

/**
 * The model called tools the run's client runs (/api/v1, sql/0107): the run
 * waits for their results, held by no process, and its request answers
 * with the calls. Not a failure, and not parked on a person: only the
 * client's next request (or a cancel) moves it on.
 */
export class AwaitingClient extends Parked {
  override readonly spanOutcome = 'awaiting_client';
  readonly sessionId: string;
  readonly calls: Array<{ id: string; name: string; arguments: string }>;
  readonly usage: { tokens_in: number; tokens_out: number; cost_usd: number };
  constructor(runId: string, sessionId: string, calls: AwaitingClient['calls'], usage: AwaitingClient['usage']) {
    super(runId, 'The run waits for its client to run the tools it called', 'AwaitingClient');
    this.sessionId = sessionId;
    this.calls = calls;
    this.usage = usage;
  }
}
