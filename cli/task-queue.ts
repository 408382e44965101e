/**
 * The task queue of a campaign `run` starts. On the embedded default every campaign has its own,
 * so the worker in one terminal never runs (or reports on) another terminal's campaign; with a
 * configured Temporal it is the queue the `mediaflow worker` processes poll (docs/engine.md).
 * Apart from local-worker.ts, so naming the queue loads no worker code.
 */
import { engineQueue } from '../contract/engine.ts';
import { TASK_QUEUE } from '../contract/task-queues.ts';

export function campaignTaskQueue(embedded: boolean, campaign: string, given?: string): string {
  return engineQueue(given ?? (embedded ? `${TASK_QUEUE}-${campaign}` : TASK_QUEUE));
}
