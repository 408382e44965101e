/**
 * What a campaign's derive steps made, from their records (records/derivatives.ts): the run's
 * summary says it beside the model steps, since the workflow never counts derivatives (docs/derive.md).
 * Only the derivatives of the current plan count: an edited-away crop's record stays on disk.
 */
import type { Client } from '@temporalio/client';
import { campaignHandle } from '../control/campaign.ts';
import type { Plan } from '../plan/types.ts';
import { readDerivatives } from '../records/derivatives.ts';
import { readPlan } from '../records/plan-store.ts';
import { campaignStart } from '../review/sources.ts';
import { openStore } from '../store/index.ts';

export interface DeriveTally {
  readonly id: string;
  readonly from: string;
  /** Files the plan asks of the step: one per job of its `from:` step. */
  readonly files: number;
  readonly made: number;
  readonly failed: number;
}

export async function deriveTally(plan: Plan): Promise<DeriveTally[]> {
  const steps = plan.deriveSteps ?? [];
  if (steps.length === 0) return [];
  const planned = new Set(plan.jobs.flatMap((job) => (job.derivatives ?? []).map((d) => d.key)));
  const records = (await readDerivatives(openStore(plan.outputDir))).filter((r) => planned.has(r.key));
  return steps.map((step) => {
    const ofStep = records.filter((record) => record.step === step.id);
    return {
      id: step.id,
      from: step.from,
      files: step.derivativeCount,
      made: ofStep.filter((record) => record.state === 'made').length,
      failed: ofStep.filter((record) => record.state === 'failed').length,
    };
  });
}

/**
 * The same for a campaign Temporal knows, from the plan its latest run was started with, as
 * `status` shows it: only the plan's head is read when it has no derive steps. Null when the
 * plan or the records cannot be read here (the output folder is on the workers' machines).
 */
export async function campaignDeriveTally(client: Client, campaign: string): Promise<DeriveTally[] | null> {
  const start = await campaignStart(client, campaignHandle(client, campaign));
  try {
    const stored = await readPlan(start.plan);
    if ((stored.head.deriveSteps ?? []).length === 0) return [];
    return await deriveTally({ ...stored.head, jobs: await stored.jobs(0, start.plan.jobCount) });
  } catch {
    return null;
  }
}

/** `derived: feed 20/20, reel 18/20 (2 failed: mediaflow export names why)`, or null without derive steps. */
export function deriveLine(tallies: readonly DeriveTally[] | null): string | null {
  if (tallies === null) return 'derived: not readable here (the output folder is on the workers’ machines)';
  if (tallies.length === 0) return null;
  const steps = tallies.map(
    (t) => `${t.id} ${t.made}/${t.files}${t.failed > 0 ? ` (${t.failed} failed)` : ''}`,
  );
  const failed = tallies.some((t) => t.failed > 0) ? '; mediaflow export names why each failed' : '';
  return `derived: ${steps.join(', ')} files made${failed}`;
}
