/**
 * The task queues workers poll and clients start work on: shared by worker/ (which polls them) and
 * control/ (which starts campaigns and governors on them), so neither imports the other. A worker
 * polls its engine generation's queue of each name (contract/engine.ts, engineQueue).
 */
import { engineQueue } from './engine.ts';

/** Campaigns' default queue (`mediaflow worker --task-queue` and `run --task-queue` choose another). */
export const TASK_QUEUE = 'mediaflow';

/**
 * Governors have a queue of their own, polled by every mediaflow worker process (cli/local-worker.ts,
 * `mediaflow worker`): on the embedded default each campaign has its own queue, and a governor
 * on one campaign's queue would stop with that campaign's `run`.
 */
export const GOVERNOR_TASK_QUEUE = engineQueue('mediaflow-governor');
