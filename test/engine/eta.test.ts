/**
 * The campaign's ETA (workflows/engine/jobs/pace.ts), as every view shows it: jobs weighed by
 * their step's latency, measured over the time predictions were at the service, counted down
 * between ends.
 */
import { describe, expect, it } from 'vitest';
import type { JobRef, StepInfo } from '../../contract/campaign.ts';
import { noCounts } from '../../contract/no-counts.ts';
import * as CarryOver from '../../workflows/engine/jobs/carry-over.ts';
import * as GatedWindow from '../../workflows/engine/jobs/gated-window.ts';
import * as Pace from '../../workflows/engine/jobs/pace.ts';
import * as Tally from '../../workflows/engine/jobs/tally.ts';
import * as Transitions from '../../workflows/engine/jobs/transitions.ts';
import type { CampaignState } from '../../workflows/engine/model.ts';
import * as Progress from '../../workflows/engine/notices/progress.ts';

const STILL_MS = 1_000;
const CLIP_MS = 60_000;
const stepsOf = (chains: number): StepInfo[] => [
  { id: 'still', model: 'I1', retries: 0, concurrency: null, jobCount: chains },
  { id: 'clip', model: 'V4', retries: 0, concurrency: null, jobCount: chains, from: 0 },
];
const steps = stepsOf(10);

function campaign(concurrency: number, chains = 10): CampaignState {
  const s = CarryOver.openCampaign(stepsOf(chains), 2 * chains, concurrency, null, {
    limits: { createsPerSecond: 100, maxInFlight: 100 },
    now: T0,
  });
  const jobs: JobRef[] = Array.from({ length: chains }, (_, n) => [
    { i: 2 * n, key: `s${n}`, name: `still-${n}`, parent: null, step: 0, usd: 10 },
    { i: 2 * n + 1, key: `c${n}`, name: `clip-${n}`, parent: `s${n}`, step: 1, usd: 100 },
  ]).flat();
  GatedWindow.admit(s, jobs);
  return s;
}

/** Job `i` created at `from`, ended with its output at `to` (its wait measured as it would be). */
function run(s: CampaignState, i: number, from: number, to: number): void {
  Transitions.onCreated(s, i, `p${i}`, T0 + from);
  Transitions.onFinished(s, i, { kind: 'succeeded', creditsUsed: null, file: `${i}.png` }, T0 + to);
  Tally.observeWait(s.tally, to - from, i % 2);
}

/** Campaign time (ms since the epoch, as the worker clocks give it) of the campaign's start. */
const T0 = Date.UTC(2026, 11, 4);
const eta = (s: CampaignState, now: number) => Progress.campaignProgress(s, 'c', T0 + now).etaMs;

/** One slot: the first still made in 1 s, then its clip in 60 s. */
function oneChainMade(): CampaignState {
  const s = campaign(1);
  Transitions.pick(s, 1);
  run(s, 0, 0, STILL_MS);
  Transitions.pick(s, 1);
  run(s, 1, STILL_MS, STILL_MS + CLIP_MS);
  return s;
}

/** Runs the campaign as its slots would (each job its step's latency): the ETA seen at each end. */
function simulate(s: CampaignState): { at: number; etaMs: number | null; clips: number }[] {
  const out: { i: number; from: number; to: number }[] = [];
  const seen: { at: number; etaMs: number | null; clips: number }[] = [];
  let clips = 0;
  let now = 0;
  // Each prediction within ±30 % of its step's latency, the same every run.
  let seed = 7;
  const jitter = () => {
    seed = (seed * 48_271) % 2_147_483_647;
    return 0.7 + (0.6 * seed) / 2_147_483_647;
  };
  for (;;) {
    for (const { job } of Transitions.pick(s, 1_000)) {
      Transitions.onCreated(s, job.i, `p${job.i}`, T0 + now);
      const latency = (job.step === 0 ? STILL_MS : CLIP_MS) * jitter();
      out.push({ i: job.i, from: now, to: Math.round(now + latency) });
    }
    out.sort((a, b) => a.to - b.to);
    const next = out.shift();
    if (!next) return seen;
    now = next.to;
    Transitions.onFinished(s, next.i, { kind: 'succeeded', creditsUsed: null, file: `${next.i}` }, T0 + now);
    Tally.observeWait(s.tally, next.to - next.from, next.i % 2);
    if (next.i % 2 === 1) clips++;
    seen.push({ at: now, etaMs: eta(s, now), clips });
  }
}

describe('the ETA', () => {
  it('weighs what is left by each step’s latency: fast stills done do not mean slow clips are', () => {
    const s = campaign(10);
    Transitions.pick(s, 20);
    for (let n = 0; n < 10; n++) run(s, 2 * n, 0, STILL_MS);
    // No clip has ended: how long one takes is not known yet, so neither is the time left.
    expect(eta(s, STILL_MS)).toBeNull();
  });

  // From the end of the first wave of clips (the first to end are the fastest, so one clip's
  // latency is not known before) to the last jobs (once fewer are left than slots, no rate says
  // how the last ones overlap).
  it.each([1, 3, 8, 20])(
    'is within a quarter of the time truly left at every end, %i at once',
    (concurrency) => {
      const seen = simulate(campaign(concurrency, 60));
      const end = seen.at(-1)!.at;
      const measured = seen.filter(({ at, clips }) => clips >= concurrency && end - at > 1.5 * CLIP_MS);
      expect(measured.length).toBeGreaterThan(10);
      for (const { at, etaMs } of measured) {
        const truly = end - at;
        expect(etaMs, `at ${at}`).not.toBeNull();
        expect(etaMs! / truly, `at ${at}: ${etaMs} for ${truly}`).toBeGreaterThan(0.75);
        expect(etaMs! / truly, `at ${at}: ${etaMs} for ${truly}`).toBeLessThan(1.25);
      }
    },
  );

  it('counts down between ends and says nothing once the count ran out', () => {
    const s = oneChainMade();
    const at = STILL_MS + CLIP_MS;
    // One slot, one still and one clip a chain: nine chains left of 61 s each.
    expect(eta(s, at)).toBe(9 * (STILL_MS + CLIP_MS));
    expect(eta(s, at + 10_000)).toBe(9 * (STILL_MS + CLIP_MS) - 10_000);
    expect(eta(s, at + 10 * (STILL_MS + CLIP_MS))).toBeNull();
  });

  it('does not count the time nothing was at the service (a review, no worker) as slowness', () => {
    const s = campaign(1);
    Transitions.pick(s, 1);
    run(s, 0, 0, STILL_MS);
    Transitions.pick(s, 1);
    // The clip was created an hour after its still ended (a reviewer took an hour).
    run(s, 1, 3_600_000, 3_600_000 + CLIP_MS);
    expect(eta(s, 3_600_000 + CLIP_MS)).toBe(9 * (STILL_MS + CLIP_MS));
  });

  it('is carried across continue-as-new: the next run counts on from the same estimate', () => {
    const s = oneChainMade();
    const next = CarryOver.openCampaign(steps, 20, 1, null, {
      carried: JSON.parse(JSON.stringify(CarryOver.carry(s))),
      limits: { createsPerSecond: 100, maxInFlight: 100 },
      now: T0 + STILL_MS + CLIP_MS,
    });
    expect(eta(next, STILL_MS + CLIP_MS + 5_000)).toBe(eta(s, STILL_MS + CLIP_MS + 5_000));
  });

  it.each([
    ['nothing ended yet', { busyMs: 0, endedAt: null, worked: [0, 0] }, [null, null], null],
    [
      'a step with jobs left and no latency yet',
      { busyMs: 1_000, endedAt: 0, worked: [1, 0] },
      [1_000, null],
      null,
    ],
    [
      'one of two equal jobs done in 1 s',
      { busyMs: 1_000, endedAt: 0, worked: [1, 0] },
      [1_000, 1_000],
      1_000,
    ],
    [
      'a job 60 × slower left after a fast one',
      { busyMs: 1_000, endedAt: 0, worked: [1, 0] },
      [1_000, 60_000],
      60_000,
    ],
  ] as const)('%s', (_, pace, latency, expected) => {
    const counts = [{ ...noCounts(), succeeded: pace.worked[0] }, noCounts()];
    const two = [{ jobCount: 1 }, { jobCount: 1 }];
    const work = { steps: two, counts, latencyMs: latency, atService: [] };
    expect(Pace.etaMs({ ...pace, worked: [...pace.worked] }, work, 0)).toBe(expected);
  });
});
