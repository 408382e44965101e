/**
 * Spend caps when one campaign ends while another waits on the cap, on the suite's Temporal and a
 * real emulator (docs/caps.md, "Any order of notes", "What a campaign reserves"). A campaign run
 * again with 4 of its 6 stills recorded reserves only what its 2 new stills may cost once its
 * creates answer, so the ledger's committed matches the campaign's own; a second campaign takes
 * the rest of the cap; the first ends (its last report and its leave sent at once) while the
 * second waits; together with what the key spent before the cap (read from the service's account
 * usage, as `caps set` does) they never pay past the cap, and the ledger counts exactly what the
 * service charged.
 */
import { describe, expect, it } from 'vitest';
import { parseUsd } from '../../api/money.ts';
import { accountUsage } from '../../cli/caps-usage.ts';
import type { CampaignProgress } from '../../contract/campaign.ts';
import { NO_CAPS } from '../../contract/caps.ts';
import { startOrAttach } from '../../control/campaign.ts';
import { campaignProgress } from '../../control/campaign-view.ts';
import { readCaps, reportUsage, setCaps } from '../../control/caps.ts';
import { keyFingerprint } from '../../control/governor.ts';
import { storePlan } from '../../records/plan-store.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import { createGovernorWorker } from '../../worker/governor.ts';
import { suiteWorkflowBundle } from '../helpers/temporal.ts';
import { harness } from './harness.ts';

const STILL = parseUsd('0.03'); // I4's price
const CAP = 7 * STILL;

function stills(campaign: string, repeat: number, concurrency: number): string {
  return `
version: 1
campaign: ${campaign}
concurrency: ${concurrency}
output: { dir: out-${campaign} }
steps:
  - id: still
    model: I4
    repeat: ${repeat}
    input: { prompt: "A lamp on an oak table, ${campaign}" }
`;
}

async function until<T>(what: () => string, check: () => Promise<T | null>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`never: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const running = (p: CampaignProgress) => p.steps.reduce((n, s) => n + s.running, 0);

describe('spend caps: a campaign ends while another waits on the cap', () => {
  it('reserves what is left to pay, never pays past the cap, and counts every charge once', async () => {
    // Each still takes 3 s at the service: the re-run's commitment is seen while its 2 stills run,
    // however slowly a loaded machine answers the queries that look.
    const h = await harness({ timeScale: 1, latencyMs: 3_000, jitter: false });
    const key = keyFingerprint(h.emulator.baseUrl, h.emulator.apiKey);
    const options = { connection: h.connection, namespace: 'default', workflowBundle: suiteWorkflowBundle() };
    const worker = await createMediaflowWorker({ ...options, client: h.service, taskQueue: h.taskQueue });
    const governor = await createGovernorWorker(options);
    const start = async (yaml: string) => {
      const plan = await h.plan(yaml);
      return (await startOrAttach(h.temporal, plan, await storePlan(plan), h.taskQueue, key)).handle;
    };

    await governor.runUntil(
      worker.runUntil(async () => {
        // Before any cap: 4 stills made and recorded.
        expect((await (await start(stills('rerun', 4, 4))).result()).outcome).toBe('completed');
        await setCaps(h.temporal, key, { ...NO_CAPS, monthly: CAP });
        // As `caps set` does: the key's spend so far counts ($0.12 of the $0.21 cap).
        const usage = await accountUsage({ baseUrl: h.emulator.baseUrl, apiKey: h.emulator.apiKey });
        expect(usage).toEqual({ total: 4 * STILL, models: { I4: 4 * STILL } });
        await reportUsage(h.temporal, key, usage!);
        await until(
          () => 'the ledger counts the key’s spend',
          async () => ((await readCaps(h.temporal, key))?.lines[0]?.spent === 4 * STILL ? true : null),
        );

        // Run again with 2 more: 4 recorded, 2 to make.
        const rerun = await start(stills('rerun', 6, 6));
        let seen = '';
        await until(
          () => `the ledger commits what the re-run's 2 new stills may cost (last seen ${seen})`,
          async () => {
            const view = await readCaps(h.temporal, key);
            const { progress } = await campaignProgress(
              h.temporal,
              rerun.workflowId.replace(/^mediaflow-/, ''),
            );
            seen = JSON.stringify([view?.committedBy, running(progress)]);
            return running(progress) === 2 && view?.committedBy[rerun.workflowId] === 2 * STILL ? true : null;
          },
        );

        // The other campaign wants 8 stills: it gets the rest of the cap (one) and waits for more.
        const other = await start(stills('other', 8, 2));
        expect((await rerun.result()).outcome).toBe('completed');
        const otherName = other.workflowId.replace(/^mediaflow-/, '');
        const held = await until(
          () => `the other campaign held by the cap with nothing running (last seen ${seen})`,
          async () => {
            const { progress } = await campaignProgress(h.temporal, otherName);
            seen = JSON.stringify([progress.cap_reached, progress.spent, running(progress)]);
            return progress.cap_reached !== undefined && running(progress) === 0 ? progress : null;
          },
        );
        // 4 stills before the cap, 2 new ones of the re-run, 1 of the other: never past the cap.
        const charged = parseUsd(h.emulator.ledger().creditsCharged);
        expect(charged).toBe(CAP);
        expect(held.spent).toBe(STILL);
        // The held campaign's last report reaches the ledger by signal, a moment after its memo.
        const line = await until(
          () => `the ledger books every charge with nothing committed (last seen ${seen})`,
          async () => {
            const first = (await readCaps(h.temporal, key))?.lines[0];
            seen = JSON.stringify(first);
            return first?.committed === 0 ? first : null;
          },
        );
        expect(line).toEqual(expect.objectContaining({ spent: charged, committed: 0 }));
        await other.terminate('test over');
      }),
    );
  }, 90_000);
});
