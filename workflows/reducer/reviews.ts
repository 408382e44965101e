/**
 * Review decisions as the reducer takes them (docs/spec-format.md, "Review gates"): a reviewer's
 * batch applies or is refused decision by decision, accepted ones are recorded before they are
 * acknowledged, and what decisions released is read again from the plan. The rules themselves are
 * state/review-rules.ts; the gates' bookkeeping state/gates.ts.
 */
import type { JobRef } from '../../contract/campaign.ts';
import type { ReviewAck, ReviewBatch, ReviewDecision } from '../../contract/review.ts';
import * as Moves from '../job-moves.ts';
import * as Gates from '../state/gates.ts';
import { batchProblem, type Span } from '../state/review-rules.ts';
import type { Effect } from './effects.ts';
import type { Model } from './model.ts';

/** A reviewer's batch: each decision applies or is refused with its reason; accepted ones are recorded, then acknowledged. */
export function reviewed(m: Model, decisions: readonly ReviewDecision[], at: string): Effect[] {
  const { ack, records } = Moves.review(m.jobs, decisions, at);
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
export function refusalOfBatch(m: Model, batch: ReviewBatch): { message: string; ack?: ReviewAck } | null {
  const problem = batchProblem(batch);
  if (problem) return { message: problem };
  const { ack } = Moves.review(m.jobs, batch.decisions, '', true);
  if (ack.accepted.length > 0) return null;
  const reasons = ack.refused.map(({ key, message }) => `${key}: ${message}`).join('; ');
  return { message: `no decision of this batch can apply: ${reasons}`, ack };
}

/** Takes past their step's timeout are decided by `on_timeout`, and recorded like any decision. */
export function timedOut(m: Model, at: string): Effect[] {
  const records = Gates.timeOut(m.jobs, m.clock.at, at);
  return [
    { kind: 'log', level: 'info', message: 'reviews timed out', attrs: { count: records.length } },
    ...(records.length > 0 ? [{ kind: 'record-decisions', records } as const] : []),
  ];
}

/** Jobs read for indexes decisions released: descendants run or are skipped, or a job is retaken. */
export function released(m: Model, span: Span, jobs: readonly JobRef[]): Effect[] {
  Gates.released(m.jobs, span, jobs);
  return [];
}
