/**
 * A service outage met by finishes, not creates: every create is answered before the service
 * goes down, so only the waits for the predictions (their streams break, their reads get 503)
 * meet it. The workflow never hears of a finish retrying, so before, `status` showed nothing
 * but frozen counts; now it names the pause as it does for creates (control/finish-outage.ts),
 * and once the service is back every job lands, none failed, each paid once.
 */
import { describe, expect, it } from 'vitest';
import { paidOnce } from '../../bench/drills/stop-kit.ts';
import { pauseLine } from '../../cli/pause-line.ts';
import type { CampaignProgress } from '../../contract/campaign.ts';
import { campaignView } from '../../control/campaign-view.ts';
import { harness } from './harness.ts';

const JOBS = 4;
const IMAGES = `
version: 1
campaign: finish-outage
concurrency: 50
output: { dir: out }
steps:
  - id: still
    model: I4
    repeat: ${JOBS}
    input: { prompt: "Acme kettle on slate", aspect_ratio: "1:1" }
`;

describe('service outage while predictions are waited on', () => {
  it('status names the pause of the finishes; nothing fails; all land once the service is back', {
    timeout: 180_000,
  }, async () => {
    // Long enough that the outage begins before any prediction ends, even when a loaded machine
    // holds this process back for seconds after the last create. In real time: the harness's
    // emulator runs at timeScale 0 (predictions end at once) unless told, and at 0 a loaded CI run
    // saw the campaign complete before the outage began.
    const h = await harness({ latencyMs: 6_000, jitter: false, timeScale: 1 });
    const plan = await h.plan(IMAGES);
    let seen: CampaignProgress | null = null;
    const done = await h.run(plan, async (handle) => {
      // Every prediction created (one batch): from here on only finishes talk to the service.
      while (h.emulator.ledger().predictionsCreated < JOBS) await new Promise((r) => setTimeout(r, 50));
      h.emulator.setFaults({ serverErrorRate: 1 });
      while (!seen) {
        const { progress, closedAt } = await campaignView(h.temporal, handle);
        if (progress.paused) seen = progress;
        else if (closedAt !== null)
          throw new Error(`the campaign ended (${progress.outcome}) before status named the outage`);
        else await new Promise((r) => setTimeout(r, 200));
      }
      h.emulator.setFaults({ serverErrorRate: 0 });
    });
    const paused = seen!.paused!;
    expect(paused).toMatchObject({
      kind: 'service_unavailable',
      reason: expect.stringMatching(/503|unavailable/i),
    });
    expect(paused.since).toBeLessThanOrEqual(paused.until);
    expect(pauseLine(seen!, Date.now())).toMatch(/^paused: the service is unavailable since/);
    expect(seen!.steps[0]!.failed).toBe(0);
    expect(done.outcome).toBe('completed');
    expect(done.steps[0]).toMatchObject({ failed: 0, succeeded: JOBS });
    expect(await h.manifest(plan)).toHaveLength(JOBS);
    expect(paidOnce(h.emulator.ledger(), JOBS)).toMatchObject({ ok: true });
  });
});
