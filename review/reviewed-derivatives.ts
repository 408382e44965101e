/**
 * The files of reviewed derive steps as the decision commands name them: `<derive step>/<file>`,
 * the derivative's path in the output folder without its extension (as a channel card is named
 * before it is made), or its key. A decision on one goes to the workflow like a job's.
 */
import type { ModelLabel } from '../api/catalogue/index.ts';
import type { Plan } from '../plan/types.ts';

export interface ReviewedDerivative {
  readonly key: string;
  readonly name: string;
  /** Its parent job's model: what a decision's prompt, were it given one, is checked against. */
  readonly model: ModelLabel;
}

export function reviewedDerivativesOf(plan: Plan): ReviewedDerivative[] {
  const reviewed = new Set((plan.deriveSteps ?? []).flatMap(({ id, review }) => (review ? [id] : [])));
  if (reviewed.size === 0) return [];
  return plan.jobs.flatMap((job) =>
    (job.derivatives ?? [])
      .filter(({ step }) => reviewed.has(step))
      .map(({ key, step, file }) => ({ key, name: `${step}/${file}`, model: job.model })),
  );
}
