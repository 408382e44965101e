/**
 * Two witnesses the cluster drill adds to verify.ts: what an operator sees in Temporal, asked the
 * way an operator asks. The campaign listed by `temporal workflow list --query` on mediaflow's
 * search attributes (SQL visibility on PostgreSQL), and every workflow task failure in its
 * histories, so a nondeterminism met during the run shows even when today's replay passes.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import { findTemporalCli, INSTALL_HINT, SDK_DOWNLOAD } from '../../worker/temporal-cli.ts';
import type { CampaignRun } from '../lib/campaign.ts';
import { countPer } from '../lib/report.ts';
import type { Stack } from '../lib/stack.ts';
import { readManifest } from './verify.ts';

const execFile = promisify(execFileCallback);
/** Visibility follows the history a moment later. */
const VISIBILITY_WAIT_MS = 15_000;

/** The workflow ids `temporal workflow list --query <query>` prints, once it lists `workflowId`. */
export async function listedByQuery(
  { address, namespace }: { address: string; namespace: string },
  query: string,
  workflowId: string,
): Promise<string[]> {
  const cli = await findTemporalCli();
  if (cli === SDK_DOWNLOAD) throw new Error(`the visibility check needs the temporal CLI: ${INSTALL_HINT}`);
  const args = ['workflow', 'list', '--address', address, '--namespace', namespace];
  const deadline = Date.now() + VISIBILITY_WAIT_MS;
  for (;;) {
    const { stdout } = await execFile(cli, [...args, '--query', query, '--output', 'json']);
    const rows = (stdout.trim() ? JSON.parse(stdout) : []) as { execution: { workflowId: string } }[];
    const ids = rows.map((row) => row.execution.workflowId);
    if (ids.includes(workflowId) || Date.now() > deadline) return ids;
    await sleep(250);
  }
}

/** WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR (the enum lives in @temporalio/proto, not a dependency). */
const NON_DETERMINISTIC = 24;

/** Workflow task failures over every run of the campaign, and those caused by nondeterminism. */
export async function workflowTaskFailures(client: Client, workflowId: string) {
  let failed = 0;
  let nondeterministic = 0;
  let runId: string | undefined;
  do {
    const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    for (const event of events) {
      const failure = event.workflowTaskFailedEventAttributes;
      if (!failure) continue;
      failed++;
      if (failure.cause === NON_DETERMINISTIC) nondeterministic++;
    }
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  } while (runId);
  return { failed, nondeterministic };
}

/**
 * Jobs recorded in each 10 s of a run, from its manifest (`finished_at`), and the CPU its workers
 * used: set beside the other server's run, they show which breaks cost the wall its seconds.
 */
export async function runProfile(stack: Stack, run: CampaignRun) {
  const { entries } = await readManifest(run.plan.outputDir, stack.storeOf(run.plan.outputDir));
  const recordedAt = entries.map((entry) => Date.parse(entry.finished_at) - run.progress.startedAt);
  const recordedPer10s = countPer(recordedAt, 10_000);
  const workersCpuS = stack.workers.reduce((n, w) => n + w.cpuSeconds(), 0);
  return { wallMs: run.wallMs, recordedPer10s, workersCpuS: Math.round(workersCpuS * 10) / 10 };
}
