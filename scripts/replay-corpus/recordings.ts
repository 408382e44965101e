/**
 * How each shape of the replay corpus is recorded (scripts/record-replay-corpus.ts): one small
 * real campaign per shape, against the dev server and the emulator, driven to show what the shape
 * is for (a cancel mid-run, a 429, a review's retake, a governor's shares).
 */
import { once } from 'node:events';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  REVIEW_UPDATE,
  type ReviewAck,
  type ReviewBatch,
  type ReviewDecision,
} from '../../contract/review.ts';
import type { EmulatorOptions } from '../../emulator/index.ts';
import { createGovernorWorker } from '../../worker/governor.ts';
import { pairs, productLaunch, stills } from './specs.ts';
import { type Campaign, runToEnd, startCampaign, type Temporal, untilCreated } from './stack.ts';

/** A shape that is one campaign run to its end: its name, spec and emulator settings. */
function toItsEnd(shape: string, spec: () => string | Promise<string>, emulator: EmulatorOptions) {
  return async (t: Temporal): Promise<Campaign> => {
    const c = await startCampaign(t, shape, await spec(), emulator);
    await runToEnd(c);
    return c;
  };
}

/** Images feeding videos (`from:`), the example campaign users start with: stills with the longest chains go first. */
export const chain = toItsEnd('chain', productLaunch, {
  latencyMs: { I1: 300, V4: 800 },
  timeScale: 1,
  seed: 1,
});

/** Window-bound (4 in flight, 1.5 s each, 100 creates/s allowed): from the first wave on, finishes name heirs. */
export const heirs = toItsEnd('heirs', () => stills(20, 4), {
  latencyMs: { I4: 1_500 },
  jitter: false,
  timeScale: 1,
  limits: { createsPerMinute: 6_000 },
});

/** Rate-bound (20 in flight, 1 s each, 10 creates/s allowed): no heirs; each create batch's jobs are finished by one activity. */
export const batchedFinishes = toItsEnd('batched-finishes', () => stills(40, 20), {
  latencyMs: { I4: 1_000 },
  jitter: false,
  timeScale: 1,
  limits: { createsPerMinute: 600 },
});

/** The server suggests continue-as-new at 100 events (its own server), so the campaign rolls over at least twice. */
export const continueAsNew = toItsEnd('continue-as-new', () => pairs(50, { concurrency: 4 }), {
  latencyMs: 300,
  timeScale: 1,
  seed: 2,
});

/**
 * The heirs campaign canceled mid-run, halfway through a prediction, so the finishes in flight are
 * waiting with heirs named: the cancel ends them upstream rather than at their natural end.
 */
export async function cancel(t: Temporal): Promise<Campaign> {
  const c = await startCampaign(t, 'cancel', stills(24, 4), {
    latencyMs: { I4: 1_500 },
    jitter: false,
    timeScale: 1,
    limits: { createsPerMinute: 6_000 },
  });
  await runToEnd(c, async () => {
    await untilCreated(c, 10);
    await sleep(700);
    await c.handle.cancel();
  });
  return c;
}

/**
 * A campaign whose output folder holds what a killed attempt left of one of its files: at its end
 * it removes it.
 */
export async function sweepAtEnd(t: Temporal): Promise<Campaign> {
  const c = await startCampaign(t, 'sweep-at-end', stills(6, 3), { latencyMs: 200, timeScale: 1, seed: 4 });
  const job = c.plan.jobs[0]!;
  await mkdir(join(c.plan.outputDir, job.step), { recursive: true });
  await writeFile(join(c.plan.outputDir, job.step, `${job.name}.png.0a1b2c3d.part`), 'half a picture');
  await runToEnd(c);
  return c;
}

/** A $6.30 plan under a $3 budget, started anyway (run --allow-over-budget skips the same preflight). */
export const budgetStop = toItsEnd('budget-stop', () => pairs(10, { concurrency: 6, budgetUsd: 3 }), {
  latencyMs: { I4: 200, V6: 500 },
  timeScale: 1,
  seed: 3,
});

/**
 * A third of predictions fail. Stills never regenerate, so a failed still fails its job and its
 * clip is skipped; clips regenerate once, and a clip failing twice fails. (Which ones fail
 * depends on request order too, not only the seed, so the spread is wide on purpose.)
 */
export const failuresRegenerations = toItsEnd(
  'failures-regenerations',
  () => pairs(12, { concurrency: 8, stillRetries: 0, clipRetries: 1 }),
  { latencyMs: { I4: 200, V6: 400 }, timeScale: 1, seed: 5, faults: { failRate: 0.35 } },
);

/**
 * Everything stopped mid-run (the worker killed outright) and started again with an emulator that
 * lost its memory: the finishes the new worker resumes (after their heartbeats time out, 10 s)
 * meet 404s and their jobs regenerate. The corpus history nondeterminism-resume-after-404.json
 * is made this way. No query is sent: a query would make a worker
 * replay the history early, which is not what happened there.
 */
export async function detachResume(t: Temporal): Promise<Campaign> {
  const spec = pairs(8, { concurrency: 6, stillRetries: 2, clipRetries: 2 });
  const c = await startCampaign(t, 'detach-resume', spec, {
    latencyMs: { I4: 500, V6: 3_000 },
    timeScale: 1,
    seed: 6,
  });
  const first = c.spawnWorker();
  await untilCreated(c, 10);
  first.kill('SIGKILL');
  await once(first, 'exit');
  await c.restartEmulator();
  await runToEnd(c);
  return c;
}

/**
 * The service's create rate cut from 100/s to 1.5/s mid-run: 429s, then the limits read again,
 * which the workflow does at most every 5 s, so the campaign must last longer than that.
 */
export async function rateLimited(t: Temporal): Promise<Campaign> {
  const c = await startCampaign(t, 'rate-limited', pairs(12, { concurrency: 10 }), {
    latencyMs: 200,
    timeScale: 1,
    seed: 7,
    limits: { createsPerMinute: 6_000 },
  });
  await runToEnd(c, async () => {
    await untilCreated(c, 2);
    c.emulator.setLimits({ createsPerMinute: 90 });
  });
  return c;
}

/**
 * Review gates: six stills wait for decisions sent as the `review` update (two approved, one
 * rejected, one regenerated with a new prompt and then approved), and the last two time out
 * (rejected) after 6 s. Decisions are the client's; the timeout is the workflow's own timer.
 */
export async function reviewGates(t: Temporal): Promise<Campaign> {
  const review = '{ timeout: 6s, on_timeout: reject, edit_prompt: true }';
  const c = await startCampaign(t, 'review-gates', pairs(6, { concurrency: 4, review }), {
    latencyMs: { I4: 200, V6: 400 },
    timeScale: 1,
    seed: 8,
  });
  const [p0, p1, p2, p3] = c.plan.jobs.filter((job) => job.step === 'still').map((job) => job.key);
  const decide = (decisions: ReviewDecision[]) =>
    c.handle.executeUpdate<ReviewAck, [ReviewBatch]>(REVIEW_UPDATE, { args: [{ decisions }] });
  await runToEnd(c, async () => {
    await untilCreated(c, 6);
    await sleep(1_000); // the stills are saved and wait
    await decide([
      { key: p0!, action: 'approve', by: 'corpus' },
      { key: p1!, action: 'approve' },
      { key: p2!, action: 'reject', note: 'off brand' },
      { key: p3!, action: 'regenerate', prompt: 'Studio shot of product p3, softer light' },
    ]);
    await untilCreated(c, 9); // two clips and the new take
    await sleep(1_000);
    await decide([{ key: p3!, action: 'approve' }]);
  });
  return c;
}

/**
 * Two campaigns on one key through its rate governor, the recorded one second: its share (half
 * the key) signalled in, its limits and rate need reported, the whole key once the other has
 * left, its own leave. Each has its own emulator: the governor knows keys only by fingerprint.
 */
export async function governed(t: Temporal): Promise<Campaign> {
  const key = 'corpus-governed-key';
  const options = { latencyMs: 300, jitter: false, timeScale: 1, limits: { createsPerMinute: 600 } };
  const other = await startCampaign(t, 'governed-other', stills(10, 4), options, key);
  const c = await startCampaign(t, 'governed', stills(30, 4), options, key);
  const governors = await createGovernorWorker({ connection: t.connection, namespace: 'default' });
  try {
    await governors.runUntil(Promise.all([runToEnd(other), runToEnd(c)]));
  } finally {
    await other.closeEmulator();
    await rm(other.dir, { recursive: true, force: true });
  }
  return c;
}
