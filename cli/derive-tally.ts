/**
 * What a campaign's derive steps made, from their records (records/derivatives.ts): the run's
 * summary says it beside the model steps, since the workflow never counts derivatives (docs/derive.md).
 * Only the derivatives of the current plan count: an edited-away crop's record stays on disk.
 */
import type { Plan } from '../plan/types.ts';
import { readDerivatives } from '../records/derivatives.ts';
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

/** `derived: feed 20/20, reel 18/20 (2 failed: mediaflow export names why)`, or null without derive steps. */
export function deriveLine(tallies: readonly DeriveTally[]): string | null {
  if (tallies.length === 0) return null;
  const steps = tallies.map(
    (t) => `${t.id} ${t.made}/${t.files}${t.failed > 0 ? ` (${t.failed} failed)` : ''}`,
  );
  const failed = tallies.some((t) => t.failed > 0) ? '; mediaflow export names why each failed' : '';
  return `derived: ${steps.join(', ')} files made${failed}`;
}
