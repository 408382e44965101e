/**
 * Download faults end in a named outcome, end to end against the emulator's knobs (issue 21): a
 * body short on every bounded fetch fails its job `download_failed` (paid once; a later run
 * fetches the same prediction again, for free), a trickle ends `download_stalled`, an expired
 * link is asked for again, and an output the service deleted is made again within the step's
 * retries, saying so. Counts are read as `status` reads them: from the campaign's progress.
 */
import { describe, expect, it, vi } from 'vitest';
import { parseUsd } from '../../api/money.ts';
import { campaignTotal } from '../../cli/campaign-total.ts';
import { createAndFinish, finish } from './activity-env.ts';
import { harness } from './harness.ts';

const stills = (prompt: string, retries = 1) => `
version: 1
campaign: download-faults
concurrency: 4
output: { dir: out }
steps:
  - id: still
    model: I4
    retries: ${retries}
    repeat: 2
    input: { prompt: "${prompt}" }
`;

describe('download faults', () => {
  it('a body short on every fetch fails its job download_failed; the next run fetches it for free', async () => {
    const h = await harness({ faults: { truncateDownloadRate: 1 } });
    const plan = await h.plan(stills('Acme kettle on a counter'));
    const first = await h.run(plan);
    expect(first.outcome).toBe('completed');
    // Never regenerated: the prediction was paid and the service still has it.
    expect(first.steps[0]).toMatchObject({ succeeded: 0, failed: 2, download_failed: 2, regenerated: 0 });
    expect(first.recentFailures[0]!.message).toMatch(/gave up after 3 fetches: fetch 1 stopped after/);
    const paid = h.emulator.ledger();
    expect(paid.predictionsCreated).toBe(2);
    expect(first.spent).toBe(parseUsd(paid.creditsCharged));
    // The records say what was paid though no output was saved (records/unsaved.ts).
    expect(await campaignTotal(plan.outputDir, plan.campaign, 0)).toBe(first.spent);

    // A run whose fetches fail again fails the jobs again, and counts nothing more.
    const failedAgain = await h.run(plan);
    expect(failedAgain.steps[0]).toMatchObject({ succeeded: 0, failed: 2, download_failed: 2 });
    expect(failedAgain.spent).toBe(0);

    h.emulator.setFaults({ truncateDownloadRate: 0 });
    const again = await h.run(plan);
    expect(again.steps[0]).toMatchObject({ succeeded: 2, failed: 0 });
    expect(await h.manifest(plan)).toHaveLength(2);
    // The same predictions, adopted under their idempotency keys: nothing created or charged again.
    expect(h.emulator.ledger().predictionsCreated).toBe(2);
    expect(h.emulator.ledger().creditsCharged).toBe(paid.creditsCharged);
    // And this run counts none of it: the campaign's spend in all runs is the ledger's.
    expect(again.spent).toBe(0);
    expect(await campaignTotal(plan.outputDir, plan.campaign, again.spent)).toBe(first.spent);
  });

  it('a finish of a prediction paid before counts nothing, even when it finds the job recorded already', async () => {
    const h = await harness();
    const plan = await h.plan(stills('Acme kettle, paid once'));
    const { created, finished } = await createAndFinish(h, plan, 0);
    if (created.kind !== 'created') throw new Error(`expected a created job, got ${created.kind}`);
    expect(finished?.outcome).toMatchObject({
      kind: 'succeeded',
      creditsUsed: parseUsd(h.emulator.ledger().creditsCharged),
    });
    // A retried finish (its worker died after recording the job) finds the record: the workflow
    // counts the committed price (null), unless an earlier run paid for the prediction.
    expect((await finish(h, plan, created)).outcome).toMatchObject({ kind: 'succeeded', creditsUsed: null });
    const paid = await finish(h, plan, created, { paidBefore: true });
    expect(paid.outcome).toMatchObject({ kind: 'succeeded', creditsUsed: 0 });
  });

  it('a body that trickles stalls under the minimum rate and ends download_stalled', async () => {
    vi.stubEnv('MEDIAFLOW_DOWNLOAD_FETCHES', '2');
    vi.stubEnv('MEDIAFLOW_DOWNLOAD_RATE_WINDOW_S', '0.5');
    const h = await harness({ faults: { trickleDownloadRate: 1, trickleByteEveryMs: 200 } });
    const plan = await h.plan(stills('Acme kettle, trickled'));
    const progress = await h.run(plan);
    vi.unstubAllEnvs();
    expect(progress.steps[0]).toMatchObject({ failed: 2, download_stalled: 2, regenerated: 0 });
    expect(progress.recentFailures[0]!.message).toMatch(
      /gave up after 2 fetches: fetch 1 stalled: \d+ bytes in 0.5 s, under the minimum 16384 bytes\/s/,
    );
    expect(h.emulator.ledger().predictionsCreated).toBe(2);
  });

  it('an expired link is asked for again; an output the service deleted is made again, then fails, saying so', async () => {
    const h = await harness();
    const plan = await h.plan(`
version: 1
campaign: download-links
concurrency: 4
output: { dir: out }
steps:
  - id: renewed
    model: I4
    input: { prompt: "Acme kettle [expired-link]" }
  - id: deleted
    model: I4
    retries: 1
    input: { prompt: "Acme toaster [gone-output]" }
`);
    const progress = await h.run(plan);
    expect(progress.steps[0]).toMatchObject({ succeeded: 1, failed: 0, links_refreshed: 1 });
    expect(progress.steps[1]).toMatchObject({ succeeded: 0, regenerated: 1, failed: 1, outputs_expired: 2 });
    expect(progress.recentFailures.map((f) => f.message)).toEqual([
      expect.stringMatching(
        /expired at the service \(.*HTTP 410.*asked again, no output is left\): made again/,
      ),
    ]);
    // The renewed one once, the deleted one and its one new take.
    expect(h.emulator.ledger().predictionsCreated).toBe(3);
    expect(await h.manifest(plan)).toHaveLength(1);
  });
});
