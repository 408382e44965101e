/**
 * Running a spec again after a campaign ended early finishes what is left: a prediction the
 * service remembers under a job's idempotency key but that ended canceled or failed is not handed
 * back as the job's output; the job is made again under a key that names what it replaces.
 */
import { describe, expect, it } from 'vitest';
import type { CampaignProgress } from '../../contract/campaign.ts';
import { harness } from './harness.ts';

const STILLS = `
version: 1
campaign: rerun
concurrency: 8
output: { dir: out }
steps:
  - id: still
    model: I4
    repeat: 8
    input: { prompt: "Acme kettle on a kitchen counter" }
`;

describe('running a spec again', () => {
  it('after a cancel, makes the canceled jobs again and finishes', async () => {
    const h = await harness({ latencyMs: 3_000, jitter: false, timeScale: 1 });
    const plan = await h.plan(STILLS);
    const canceled = await h.run(plan, async (handle) => {
      // Predictions in flight (3 s each), none finished yet.
      await new Promise((r) => setTimeout(r, 1_500));
      await handle.cancel();
    });
    expect(canceled.outcome).toBe('canceled');
    const done = (await h.manifest(plan)).length;
    const made = h.emulator.ledger().predictionsCreated;
    expect(done).toBeLessThan(8);

    const again: CampaignProgress = await h.run(plan);
    expect(again.outcome).toBe('completed');
    expect(await h.manifest(plan)).toHaveLength(8);
    // Only the jobs without a file were made again; the recorded ones cost nothing.
    expect(h.emulator.ledger().predictionsCreated).toBe(
      made + (8 - done) - (made - done - canceled.steps[0]!.canceled),
    );
  });
});
