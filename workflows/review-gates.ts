/**
 * The executor's side of review gates (docs/spec-format.md, "Review gates"): the `review` update,
 * the timer that times takes out, and the two commands decide.ts gives for them. The state and its
 * rules live in state/reviews.ts and state/review-rules.ts. Only campaigns with a reviewed step
 * use any of this, so histories recorded without gates replay unchanged.
 */
import { ApplicationFailure, condition, log, setHandler } from '@temporalio/workflow';
import type { StepInfo } from '../contract/campaign.ts';
import type { DecisionRecord, ReviewBatch } from '../contract/review.ts';
import { loadJobs, recordDecisions } from './activities.ts';
import type { CampaignState } from './campaign-state.ts';
import type { CampaignClock } from './clock.ts';
import { stopOf } from './failure-of.ts';
import { reviewUpdate } from './messages.ts';
import type { Campaign } from './reactions.ts';
import type { RunState } from './run-state.ts';
import { batchProblem } from './state/review-rules.ts';

export function hasGates(steps: readonly StepInfo[]): boolean {
  return steps.some((step) => step.review !== undefined);
}

export function reviewGates({
  state,
  clock,
  run,
  context,
}: {
  state: CampaignState;
  clock: CampaignClock;
  run: RunState;
  context: Campaign['context'];
}) {
  /** Each accepted decision, created once per job key and take (activities/decisions.ts). */
  async function record(records: readonly DecisionRecord[]): Promise<void> {
    if (records.length === 0) return;
    await recordDecisions.executeWithOptions({ summary: `record ${records.length} review decisions` }, [
      { campaign: context.campaign, outputDir: context.outputDir, records },
    ]);
  }

  function changed(): void {
    run.changed = true;
    run.reports++;
  }

  setHandler(
    reviewUpdate,
    async (batch: ReviewBatch) => {
      // Workflow time of this task: a timestamp for the record, never a decision.
      const { ack, records } = state.gates.review(batch.decisions, new Date().toISOString());
      changed();
      try {
        await record(records);
      } catch (error) {
        // Unrecordable (a full disk…): the campaign stops with that outcome, as for any file it
        // cannot write, and the update fails with the reason; a re-run asks for these again.
        const stop = stopOf(error);
        if (stop) state.stopWith(stop.effect.outcome, stop.message);
        throw error;
      }
      return ack;
    },
    {
      validator(batch: ReviewBatch) {
        const problem = batchProblem(batch);
        if (problem)
          throw ApplicationFailure.create({ type: 'ReviewInvalid', message: problem, nonRetryable: true });
        const { ack } = state.gates.review(batch.decisions, '', true);
        if (ack.accepted.length > 0) return;
        const reasons = ack.refused.map(({ key, message }) => `${key}: ${message}`).join('; ');
        throw ApplicationFailure.create({
          type: 'ReviewRefused',
          message: `no decision of this batch can apply: ${reasons}`,
          details: [ack],
          nonRetryable: true,
        });
      },
    },
  );

  /**
   * Wakes the executor when the earliest take awaiting review times out. A timer of its own,
   * because the campaign clock moves only with facts in history: an update waking the executor
   * early must not push a deadline back.
   */
  async function watchDeadlines(): Promise<void> {
    for (;;) {
      await condition(() => state.gates.deadline() !== null);
      const due = state.gates.deadline()!;
      const from = clock.now();
      if (due > from) {
        const sooner = () => (state.gates.deadline() ?? Number.POSITIVE_INFINITY) < due;
        if (await condition(sooner, due - from)) continue;
        clock.slept(from, due - from);
      }
      changed();
      await condition(() => (state.gates.deadline() ?? Number.POSITIVE_INFINITY) > clock.now());
    }
  }

  return {
    watchDeadlines,
    /** Takes past their timeout are decided by `on_timeout`, and recorded like any decision. */
    async timeOut(): Promise<void> {
      const records = state.gates.timeOut(new Date().toISOString());
      log.info('reviews timed out', { count: records.length });
      await record(records);
    },
    /** Reads one page of what decisions released: descendants to run or skip, or jobs to retake. */
    async readReleased(): Promise<void> {
      const span = state.gates.nextRead()!;
      const jobs = await loadJobs.executeWithOptions(
        { summary: `read jobs ${span.from + 1}–${span.from + span.count} again: released by reviews` },
        [context.plan, span.from, span.count],
      );
      state.gates.released(span, jobs);
    },
  };
}
