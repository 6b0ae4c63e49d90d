// The AI surface's jobs: async workflow runs, resumed workflow, agent and orchestration runs, source extraction, indexing,
// BM25 builds, metadata and graph enrichment. Each parses its payload first
// (a job queued by an older or hand-written statement with a bad payload
// fails at once, saying what is wrong) and calls the work the surface
// exposes (AiJobs). Who queues each: the SQL function named beside it.
import type { JobHelpers, TaskList } from 'graphile-worker';
import { z } from 'zod';
import type { AiJobs } from '../../server/ai/index.ts';

const id = z.uuid();
const run = z.number().int().positive();
/** A flag SQL may send as null (false then). */
const flag = z.boolean().nullish().transform(Boolean);

const attemptOf = (helpers: JobHelpers) => ({ n: helpers.job.attempts, max: helpers.job.max_attempts });

export function aiTasks(jobs: AiJobs): TaskList {
  return {
    // ai.queue_execution (async and webhook runs)
    ai_workflow_run: async (payload, helpers) => {
      const { execution_id } = z.object({ execution_id: id }).parse(payload);
      helpers.logger.info(`workflow run ${execution_id}`);
      await jobs.runWorkflow(execution_id);
    },
    // ai.resume_abandoned_executions (the sweep: a workflow run whose process died)
    ai_workflow_resume: async (payload, helpers) => {
      const { execution_id } = z.object({ execution_id: id }).parse(payload);
      helpers.logger.info(`workflow run ${execution_id} resumed`);
      await jobs.resumeWorkflow(execution_id);
    },
    // ai.queue_run_resume (the sweep: a run whose process died; a parked run's answer or deadline;
    // begin: a run begun by a request, AI_RUN_PLACEMENT=worker, through ai.hand_run_to_worker)
    ai_run_resume: async (payload, helpers) => {
      const { kind, run_id, begin } = z.object({ kind: z.enum(['agent', 'orchestration']), run_id: id, begin: z.boolean().optional() }).parse(payload);
      helpers.logger.info(`${kind} run ${run_id} ${begin ? 'carried' : 'resumed'}`);
      await jobs.resumeRun(kind, run_id, { begin: begin ?? false });
    },
    // ai.queue_extraction
    ai_source_extract: async (payload, helpers) => {
      await jobs.extractSource(z.object({ source_id: id, run }).parse(payload), attemptOf(helpers));
    },
    // ai.start_indexing
    ai_kb_index: async (payload, helpers) => {
      await jobs.indexSource(z.object({ indexed_source_id: id, run }).parse(payload), attemptOf(helpers));
    },
    // ai.request_bm25_build (and BM25_AUTO_INDEXING after indexing)
    ai_kb_bm25: async (payload) => {
      await jobs.buildBm25(z.object({ knowledge_base_id: id }).parse(payload));
    },
    // ai.request_graph_enrichment
    ai_kb_graph: async (payload) => {
      await jobs.enrichGraph(z.object({ knowledge_base_id: id, indexed_source_id: id.nullable(), retry_failed: flag }).parse(payload));
    },
    // ai.request_enrichment
    ai_kb_enrich: async (payload, helpers) => {
      await jobs.enrichMetadata(z.object({ knowledge_base_id: id, run, incremental: z.boolean(), retry_failed: flag }).parse(payload), attemptOf(helpers));
    },
  };
}
