/**
 * Progress publishes on a wall-clock pulse whatever the activities are doing (issue 21): with
 * every download paused 25 s halfway, no activity reports, yet the memo `status` reads moves on
 * (its snapshot time, and with it the time left) every pulse instead of freezing until the files land.
 */
import { describe, expect, it, vi } from 'vitest';
import { campaignProgress } from '../../control/campaign-view.ts';
import { harness, twoStills } from './harness.ts';

describe('the progress pulse', () => {
  it('the memo moves on while every download hangs, before any job has ended', async () => {
    // A pause with no byte would count as a stall (download-bounds.ts): here it is only slow.
    vi.stubEnv('MEDIAFLOW_DOWNLOAD_MIN_RATE', '0');
    const h = await harness({ faults: { slowDownloadMs: 25_000 } });
    const plan = await h.plan(twoStills('pulse'));
    // Snapshot times published while both predictions are at the service and none has ended:
    // without the pulse nothing reports then, and the memo stays the one written after the create.
    const seen = new Set<number>();
    const progress = await h.run(plan, async () => {
      for (;;) {
        const { progress: now } = await campaignProgress(h.temporal, plan.campaign);
        const still = now?.steps[0];
        if (still && still.succeeded + still.failed > 0) break;
        if (still?.running === 2 && now?.at !== undefined) seen.add(now.at);
        if (spread(seen) >= 8_000) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    });
    expect(progress.outcome).toBe('completed');
    // A pulse apart (10 s): the loop's own waits move the clock by pacing intervals, well under a second.
    expect(spread(seen)).toBeGreaterThanOrEqual(8_000);
    vi.unstubAllEnvs();
  }, 120_000);
});

const spread = (times: Set<number>) => (times.size === 0 ? 0 : Math.max(...times) - Math.min(...times));
