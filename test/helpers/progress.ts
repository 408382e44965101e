/**
 * A campaign's progress as `status` and the workflow's memo carry it, for tables that judge what a
 * reader of it does: the given steps, nothing spent, one run, anything else from `more`.
 */
import type { CampaignProgress, StepProgress } from '../../contract/progress.ts';

export function progressWith(
  steps: readonly StepProgress[],
  more: Partial<CampaignProgress> = {},
): CampaignProgress {
  return {
    campaign: 'launch',
    outcome: 'running',
    steps: [...steps],
    spent: 0,
    committed: 0,
    budget: null,
    recentFailures: [],
    startedAt: 0,
    etaMs: null,
    runs: 1,
    ...more,
  };
}
