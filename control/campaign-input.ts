/**
 * What a campaign's workflow starts from: the plan by reference and the few facts the scheduler
 * needs, and the progress shown before the workflow publishes its own.
 */
import type { CampaignInput, DerivedGate, PlanRef } from '../contract/campaign.ts';
import { noCounts } from '../contract/no-counts.ts';
import type { CampaignProgress } from '../contract/progress.ts';
import type { Plan } from '../plan/types.ts';

/**
 * The workflow's input: the plan by reference plus the few facts the scheduler needs. `budget`:
 * what this run may spend (cli/run-budget.ts), by default the plan's.
 */
export function campaignInputOf(plan: Plan, ref: PlanRef, budget = plan.budget): CampaignInput {
  return {
    campaign: plan.campaign,
    plan: ref,
    steps: plan.steps.map(
      ({ id, model, from, retries, concurrency, jobCount, review, onRefusal, timeoutMs }) => ({
        id,
        model,
        retries,
        concurrency,
        jobCount,
        ...(from === null ? {} : { from: plan.steps.findIndex((step) => step.id === from) }),
        ...(review ? { review } : {}),
        ...(onRefusal ? { onRefusal } : {}),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...derivedGatesOf(plan, id),
      }),
    ),
    outputDir: plan.outputDir,
    budget,
    concurrency: plan.concurrency,
    ...(plan.notify && { notify: plan.notify }),
  };
}

/** The reviewed derive steps that make files from a step's outputs; nothing when there are none. */
export function derivedGatesOf(plan: Plan, step: string): { derived?: DerivedGate[] } {
  const derived = (plan.deriveSteps ?? []).flatMap(({ id, from, review }) =>
    from === step && review ? [{ id, review }] : [],
  );
  return derived.length > 0 ? { derived } : {};
}

/** The progress of a campaign that has not started any job (`run` draws it while its worker starts). */
export function nothingRunYet(input: CampaignInput): CampaignProgress {
  return {
    campaign: input.campaign,
    outcome: 'running',
    steps: input.steps.map(({ id, model, jobCount, review }) => ({
      id,
      model,
      planned: jobCount,
      waiting: jobCount,
      running: 0,
      ...noCounts(),
      ...(review ? { awaiting_review: 0, approved: 0, rejected: 0 } : {}),
    })),
    spent: 0,
    committed: 0,
    budget: input.budget,
    recentFailures: [],
    startedAt: Date.now(),
    etaMs: null,
    runs: 1,
  };
}
