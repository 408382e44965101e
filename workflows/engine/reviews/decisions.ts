/**
 * Review decisions as `step` takes them (docs/spec-format.md, "Review gates"): a reviewer's batch
 * applies or is refused decision by decision, accepted ones are recorded before they are
 * acknowledged, and takes past their step's timeout are decided by `on_timeout`. The rules
 * themselves are review-rules.ts; the gates' bookkeeping reviews.ts. What decisions release is
 * read again from the plan and put in the window by jobs/gated-window.ts.
 */
import type { Micros } from '../../../api/money.ts';
import type { DecisionRecord, ReviewAck, ReviewBatch, ReviewDecision } from '../../../contract/review.ts';
import type { Effect } from '../effects.ts';
import type { CampaignState, Model } from '../model.ts';
import { fits } from '../money/budget.ts';
import { stopped } from '../money/stop.ts';
import { batchProblem, refusalOf, ruleOf } from './review-rules.ts';
import { accept, gateOf, wasDecided } from './reviews.ts';
import { timeOut } from './timeouts.ts';

/** What the jobs say of a decision's job beyond its gate (jobs/occupancy.ts, `standing`). */
export interface Standing {
  /** The campaign has ended: no decision applies. */
  readonly ended: boolean;
  /** The job is read and not ended: still generating. */
  readonly generating: (key: string) => boolean;
}

/** A reviewer's batch: each decision applies or is refused with its reason; accepted ones are recorded, then acknowledged. */
export function reviewed(
  m: Model,
  decisions: readonly ReviewDecision[],
  at: string,
  standing: Standing,
): Effect[] {
  const { ack, records } = review(m.jobs, decisions, at, standing);
  m.run.reports++;
  return [
    ...(records.length > 0 ? [{ kind: 'record-decisions', records } as const] : []),
    { kind: 'acknowledge', ack },
  ];
}

/**
 * Why a batch cannot be taken at all, judged without changing anything (the update's validator):
 * malformed, or none of its decisions can apply (each refusal with its reason). Null: take it.
 */
export function refusalOfBatch(
  m: Model,
  batch: ReviewBatch,
  standing: Standing,
): { message: string; ack?: ReviewAck } | null {
  const problem = batchProblem(batch);
  if (problem) return { message: problem };
  const { ack } = review(m.jobs, batch.decisions, '', standing, true);
  if (ack.accepted.length > 0) return null;
  const reasons = ack.refused.map(({ key, message }) => `${key}: ${message}`).join('; ');
  return { message: `no decision of this batch can apply: ${reasons}`, ack };
}

/** Takes past their step's timeout are decided by `on_timeout`, and recorded like any decision. */
export function timedOut(m: Model, at: string): Effect[] {
  const { reviews, steps, window } = m.jobs;
  const records = timeOut(reviews, steps, m.clock.at, at, window.cursor);
  return [
    { kind: 'log', level: 'info', message: 'reviews timed out', attrs: { count: records.length } },
    ...(records.length > 0 ? [{ kind: 'record-decisions', records } as const] : []),
  ];
}

/** Each decision applies or is refused with its reason (`dryRun`: judged only, nothing moves). */
export function review(
  s: CampaignState,
  decisions: readonly ReviewDecision[],
  at: string,
  { ended, generating }: Standing,
  dryRun = false,
): { ack: ReviewAck; records: DecisionRecord[] } {
  const { window, budget, halt, reviews } = s;
  const ack: { accepted: string[]; refused: ReviewAck['refused'][number][] } = {
    accepted: [],
    refused: [],
  };
  const records: DecisionRecord[] = [];
  /** Money the batch's accepted decisions may spend: each next one must fit beside it. */
  let spending: Micros = 0;
  for (const decision of decisions) {
    const gate = gateOf(reviews, decision.key);
    const refusal = refusalOf(gate, decision, {
      rule: gate ? ruleOf(s.steps, gate) : null,
      generating: generating(decision.key),
      decided: wasDecided(reviews, decision.key),
      fits: (usd) => !stopped(halt) && fits(budget, spending + usd),
      ended,
    });
    if (refusal || !gate) {
      ack.refused.push({ key: decision.key, ...(refusal ?? { reason: 'unknown_job', message: '' }) });
      continue;
    }
    spending +=
      decision.action === 'regenerate' ? gate.usd : decision.action === 'approve' ? gate.belowUsd : 0;
    ack.accepted.push(decision.key);
    if (dryRun) continue;
    records.push({ ...decision, take: gate.take, at, source: 'reviewer' });
    accept(reviews, gate, decision.action, window.cursor, decision.prompt);
  }
  return { ack, records };
}
