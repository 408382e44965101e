/**
 * Review gates on derive steps' files moving with the campaign's state (engine/reviews/reviews.ts
 * through CampaignState), without a server: a saved output opens a gate per reviewed derivative,
 * the campaign stays open until each is decided or timed out, a regeneration of the parent asks
 * again, and a re-run recalls what was recorded.
 */
import { describe, expect, it } from 'vitest';
import type { JobRef, StepInfo } from '../../contract/campaign.ts';
import type { ReviewDecision } from '../../contract/review.ts';
import type { ReviewRule } from '../../plan/review.ts';
import * as CarryOver from '../../workflows/engine/jobs/carry-over.ts';
import * as GatedWindow from '../../workflows/engine/jobs/gated-window.ts';
import * as Transitions from '../../workflows/engine/jobs/transitions.ts';
import { campaignProgress } from '../../workflows/engine/notices/progress.ts';
import * as Decisions from '../../workflows/engine/reviews/decisions.ts';
import * as Reviews from '../../workflows/engine/reviews/reviews.ts';
import * as Timeouts from '../../workflows/engine/reviews/timeouts.ts';

const key = (n: number) => n.toString(16).padStart(32, '0');
const crops: ReviewRule = { timeoutMs: 60_000, onTimeout: 'reject', editPrompt: false };
const standing = { ended: false, generating: () => false };

/** `underived`: the jobs whose reviewed derivative could not be made, as the finish reports them. */
function campaign(parentRule?: ReviewRule, underived: readonly number[] = []) {
  const steps: StepInfo[] = [
    {
      id: 'hero',
      model: 'I1',
      retries: 0,
      concurrency: null,
      jobCount: 2,
      derived: [{ id: 'square', review: crops }],
      ...(parentRule ? { review: parentRule } : {}),
    },
  ];
  const jobs: JobRef[] = [0, 1].map((i) => ({
    i,
    key: key(i),
    name: `hero-${i}`,
    parent: null,
    step: 0,
    usd: 100,
    derived: [key(100 + i)],
  }));
  const s = CarryOver.openCampaign(steps, 2, 10, 10_000, {
    limits: { createsPerSecond: 10, maxInFlight: 10 },
    now: 0,
  });
  GatedWindow.admit(s, jobs);
  Transitions.pick(s, 10);
  for (const i of [0, 1]) {
    Transitions.onCreated(s, i, `p${i}`, 0);
    const failed = underived.includes(i) ? { underived: [0] } : {};
    Transitions.onFinished(
      s,
      i,
      { kind: 'succeeded', creditsUsed: 100, file: `hero/hero-${i}.png`, ...failed },
      0,
    );
  }
  return s;
}

const decide = (s: ReturnType<typeof campaign>, decisions: ReviewDecision[]) =>
  Decisions.review(s, decisions, 'now', standing);
const waiting = (s: ReturnType<typeof campaign>) => Object.keys(s.reviews.gates).sort();

describe('a reviewed derive step', () => {
  const rows: [string, ReviewDecision[], { accepted: string[]; refused: string[]; left: string[] }][] = [
    [
      'approving one and rejecting the other closes both gates: the campaign may end',
      [
        { key: key(100), action: 'approve' },
        { key: key(101), action: 'reject' },
      ],
      { accepted: [key(100), key(101)], refused: [], left: [] },
    ],
    [
      'a regeneration is refused and the derivative keeps waiting',
      [{ key: key(100), action: 'regenerate' }],
      { accepted: [], refused: [key(100)], left: [key(100), key(101)] },
    ],
    [
      "a decision on the parent job's key: the job has no gate of its own",
      [{ key: key(0), action: 'approve' }],
      { accepted: [], refused: [key(0)], left: [key(100), key(101)] },
    ],
  ];
  it.each(rows)('%s', (_, decisions, expected) => {
    const s = campaign();
    expect(waiting(s)).toEqual([key(100), key(101)]);
    expect(Reviews.busy(s.reviews)).toBe(true);
    const { ack, records } = decide(s, decisions);
    expect(ack.accepted).toEqual(expected.accepted);
    expect(ack.refused.map((r) => r.key)).toEqual(expected.refused);
    expect(records.map((r) => [r.key, r.action, r.take])).toEqual(
      decisions.filter((d) => expected.accepted.includes(d.key)).map((d) => [d.key, d.action, 0]),
    );
    expect(waiting(s)).toEqual(expected.left);
    expect(Reviews.busy(s.reviews)).toBe(expected.left.length > 0);
    // The step's counts are its jobs': derivatives' decisions are told by their records, and the
    // files still waiting are counted under their own step, so every view says what is left.
    expect(Reviews.awaiting(s.reviews, s.steps)).toEqual([0]);
    expect(s.reviews.approved).toEqual([0]);
    expect(campaignProgress(s, 'c', 1).derivedAwaiting).toEqual([
      { step: 'square', awaiting: expected.left.length },
    ]);
  });

  it('a reviewed file that could not be made asks nothing, in this run or a re-run', () => {
    const s = campaign(undefined, [1]);
    expect(waiting(s)).toEqual([key(100)]);
    expect(campaignProgress(s, 'c', 1).derivedAwaiting).toEqual([{ step: 'square', awaiting: 1 }]);
    expect(decide(s, [{ key: key(100), action: 'approve' }]).ack.accepted).toEqual([key(100)]);
    expect(Reviews.busy(s.reviews)).toBe(false);

    const again = CarryOver.openCampaign(s.steps, 2, 10, 10_000, {
      limits: { createsPerSecond: 10, maxInFlight: 10 },
      now: 0,
    });
    const job = { i: 1, key: key(1), name: 'hero-1', parent: null, step: 0, usd: 100, derived: [key(101)] };
    GatedWindow.cached(again, job, { derived: [null], underived: [0] }, 0);
    expect(waiting(again)).toEqual([]);
  });

  it('a derivative waiting past its timeout is decided by on_timeout and recorded as such', () => {
    const s = campaign();
    expect(Timeouts.deadline(s.reviews, s.steps)).toBe(60_000);
    const records = Timeouts.timeOut(s.reviews, s.steps, 60_000, 'later', s.window.cursor);
    expect(records.map((r) => [r.key, r.action, r.source])).toEqual([
      [key(100), 'reject', 'timeout'],
      [key(101), 'reject', 'timeout'],
    ]);
    expect(Reviews.busy(s.reviews)).toBe(false);
  });

  it("a regenerated parent's derivatives wait for its new take, then are asked about that take", () => {
    const s = campaign({ timeoutMs: null, onTimeout: 'reject', editPrompt: false });
    expect(decide(s, [{ key: key(0), action: 'regenerate' }]).ack.accepted).toEqual([key(0)]);
    // Not asked about while the new take is made.
    expect(campaignProgress(s, 'c', 1).derivedAwaiting).toEqual([{ step: 'square', awaiting: 1 }]);
    expect(decide(s, [{ key: key(100), action: 'approve' }]).ack.refused[0]?.reason).toBe(
      'not_awaiting_review',
    );
    GatedWindow.saved(
      s,
      { i: 0, key: key(0), name: 'hero-0', parent: null, step: 0, usd: 100, derived: [key(100)] },
      1,
      5,
    );
    expect(decide(s, [{ key: key(100), action: 'approve' }]).records.map((r) => r.take)).toEqual([1]);
  });

  it('gates carried across continue-as-new keep what they gate', () => {
    const s = campaign();
    const carried = Reviews.reviewsOf(s.steps, Reviews.carry(s.reviews));
    expect(Object.values(carried.gates).map((g) => [g.key, g.derived])).toEqual([
      [key(100), 1],
      [key(101), 1],
    ]);
    expect(carried.derivedCount).toBe(2);
  });

  it('a re-run recalls a recorded decision and asks only what was not decided', () => {
    const s = CarryOver.openCampaign(campaign().steps, 2, 10, 10_000, {
      limits: { createsPerSecond: 10, maxInFlight: 10 },
      now: 0,
    });
    const job = { i: 0, key: key(0), name: 'hero-0', parent: null, step: 0, usd: 100, derived: [key(100)] };
    GatedWindow.cached(s, job, { derived: ['approve'] }, 0);
    GatedWindow.cached(s, { ...job, i: 1, key: key(1), derived: [key(101)] }, { derived: [null] }, 0);
    expect(waiting(s)).toEqual([key(101)]);
  });
});
