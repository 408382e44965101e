/**
 * What a job holds while it is being created or in flight, taken and given back together: its
 * window place (its children wait), its step slot, its price committed against the budget and,
 * when spend caps hold the campaign, against its model's reservation. And what it paid.
 */
import type { Micros } from '../../../api/money.ts';
import type { PendingJob } from '../../../contract/campaign.ts';
import type { CampaignState } from '../model.ts';
import * as Allowance from '../money/allowance.ts';
import * as Budget from '../money/budget.ts';
import { give, take } from './slots.ts';
import * as Tally from './tally.ts';
import * as Window from './window.ts';

/** The model a take runs on: its fallback's, or its step's. */
export function modelOf(s: CampaignState, pending: PendingJob): string {
  return pending.model ?? s.steps[pending.job.step]!.model;
}

/** A job about to be created: its price is committed, its step slot taken, its children wait. */
export function hold(s: CampaignState, pending: PendingJob): void {
  Window.hold(s.window, pending.job);
  take(s.slots, pending);
  Budget.commit(s.budget, pending.job.usd);
  if (s.allowance) Allowance.commit(s.allowance, modelOf(s, pending), pending.job.usd);
}

/** The job lets go of what `hold` took: it ended, or goes back to waiting. */
export function unhold(s: CampaignState, pending: PendingJob): void {
  Window.end(s.window, pending.job);
  give(s.slots, pending);
  Budget.release(s.budget, pending.job.usd);
  if (s.allowance) Allowance.release(s.allowance, modelOf(s, pending), pending.job.usd);
}

/** What the service charged for a take: spent from the budget, the reservation and the step's tally. */
export function pay(s: CampaignState, pending: PendingJob, paid: Micros): void {
  Budget.charge(s.budget, paid);
  if (s.allowance) Allowance.charge(s.allowance, modelOf(s, pending), paid);
  Tally.pay(s.tally, pending.job.step, paid);
}
