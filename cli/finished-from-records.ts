/**
 * A re-run that has nothing left to make is answered from the records, without a workflow: the
 * campaign's progress as a run that found every job cached would end, built here. Walking 2,000
 * cached jobs through the workflow took about as long as making them (docs/benchmarks.md,
 * "rerun-2k"), and its memo showed the jobs being looked up as money in flight.
 *
 * Only when a workflow would decide nothing either: every job recorded done with its file there
 * (the preflight's count, after the audit restored or set aside what was missing), every reviewed
 * job's latest take approved (anything else the workflow asks again, retakes or skips), and no
 * `notify:` targets (the "completed" notice is the workflow's to send). Otherwise `run` starts the
 * workflow as before.
 */
import type { CampaignProgress, StepProgress } from '../contract/progress.ts';
import type { CampaignView } from '../control/campaign-view.ts';
import type { Plan } from '../plan/types.ts';
import { readDecisions } from '../records/decisions.ts';
import { Manifest } from '../records/manifest.ts';
import { campaignTotal } from './campaign-total.ts';
import { deriveTally } from './derive-tally.ts';
import { exitOf } from './exit-codes.ts';
import { rewriteManifest } from './manifest-upkeep.ts';
import { restoreLines } from './restore-lines.ts';
import { printSummary } from './run-summary.ts';

/** Whether the re-run may be answered from the records (`left`: the preflight's jobs to run). */
export async function answeredByRecords(plan: Plan, left: number): Promise<boolean> {
  if (left > 0 || plan.notify !== undefined) return false;
  const reviewed = new Set(plan.steps.filter((step) => step.review).map((step) => step.id));
  if (reviewed.size === 0) return true;
  const manifest = await Manifest.open(plan.outputDir);
  const decisions = await readDecisions(plan.outputDir, plan.campaign, manifest.store);
  for (const job of plan.jobs) {
    if (!reviewed.has(job.step)) continue;
    const take = (await manifest.get(job.key))?.regenerations;
    const decision = decisions.get(job.key);
    if (take === undefined || decision?.take !== take || decision.action !== 'approve') return false;
  }
  return true;
}

/** What a workflow run would end with had it found every job recorded: all cached, nothing paid. */
export function finishedProgress(plan: Plan, startedAt: number, now: number): CampaignProgress {
  const steps: StepProgress[] = plan.steps.map(({ id, model, jobCount, review }) => ({
    id,
    model,
    planned: jobCount,
    running: 0,
    waiting: 0,
    succeeded: 0,
    cached: jobCount,
    failed: 0,
    skipped: 0,
    canceled: 0,
    created: 0,
    regenerated: 0,
    spent: 0,
    ...(review ? { awaiting_review: 0, approved: jobCount, rejected: 0 } : {}),
  }));
  return {
    campaign: plan.campaign,
    outcome: 'completed',
    steps,
    spent: 0,
    committed: 0,
    inFlight: 0,
    budget: plan.budget,
    recentFailures: [],
    stopMessage: null,
    startedAt,
    submitting: false,
    at: now,
    etaMs: null,
    // No workflow run: the records answered.
    runs: 0,
  };
}

/** The end of a run the records answered: the summary a finished run prints, $0 paid; its exit code. */
export async function answerFromRecords(plan: Plan, startedAt: number, json: boolean): Promise<number> {
  // A record whose line a killed writer never appended is listed, as before a continued run.
  await restoreLines(plan);
  await rewriteManifest(plan.outputDir);
  const closedAt = Date.now();
  const view: CampaignView = {
    progress: finishedProgress(plan, startedAt, closedAt),
    closedAt,
    paused: false,
  };
  const total = await campaignTotal(plan.outputDir, plan.campaign, 0);
  printSummary(view, plan.outputDir, total, json, await deriveTally(plan));
  const exit = exitOf(view.progress, plan.outputDir);
  if (exit.reason) console.error(`exit ${exit.code}: ${exit.reason}`);
  return exit.code;
}
