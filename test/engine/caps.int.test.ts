/**
 * Spend caps across campaigns, on the suite's real Temporal and a real emulator: two campaigns on
 * one key meet a small monthly cap at once. Together they never spend past it, both pause (not
 * fail) with the cap's line in their progress, raising the cap resumes both to the end, no job is
 * paid twice, and the 50, 80 and 100 % alerts each reach the campaigns' Slack-style receiver once.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseUsd } from '../../api/money.ts';
import type { CampaignProgress } from '../../contract/campaign.ts';
import { NO_CAPS } from '../../contract/caps.ts';
import { capsWorkflowId } from '../../contract/caps-messages.ts';
import { ENGINE } from '../../contract/engine.ts';
import { GOVERNOR_TASK_QUEUE } from '../../contract/task-queues.ts';
import { startOrAttach } from '../../control/campaign.ts';
import { campaignProgress } from '../../control/campaign-view.ts';
import { CAPS_WORKFLOW, capsRunning, readCaps, setCaps } from '../../control/caps.ts';
import { keyFingerprint, keyNames } from '../../control/governor.ts';
import { storePlan } from '../../records/plan-store.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import { createGovernorWorker } from '../../worker/governor.ts';
import { suiteWorkflowBundle } from '../helpers/temporal.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import { LedgerDriver } from './caps-ledger-driver.ts';
import { harness } from './harness.ts';

const STILL = parseUsd('0.03'); // I4's price
const JOBS = 12;
const CAP = 10 * STILL; // $0.30: ten stills of the 24

function stills(campaign: string): string {
  return `
version: 1
campaign: ${campaign}
concurrency: 4
output: { dir: out-${campaign} }
steps:
  - id: still
    model: I4
    repeat: ${JOBS}
    input: { prompt: "A lamp on an oak table, ${campaign}" }
notify:
  targets:
    - url_env: MF_TEST_CAPS_SLACK_URL
      kind: slack
`;
}

/** Polls `check` (every 200 ms) until it holds; fails with `what` after `ms`. */
async function until<T>(
  what: string | (() => string),
  check: () => Promise<T | null>,
  ms = 60_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`never: ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const running = (p: CampaignProgress) => p.steps.reduce((n, s) => n + s.running, 0);

describe('spend caps across campaigns', () => {
  it('two campaigns reach a small cap at once: within it, both paused, both resumed when it is raised', async () => {
    const h = await harness({ timeScale: 1, latencyMs: 300, jitter: false });
    const slack = await startReceiver(null);
    process.env.MF_TEST_CAPS_SLACK_URL = slack.url;
    onTestFinished(() => {
      delete process.env.MF_TEST_CAPS_SLACK_URL;
    });
    const key = keyFingerprint(h.emulator.baseUrl, h.emulator.apiKey);
    const bundle = suiteWorkflowBundle();
    const options = { connection: h.connection, namespace: 'default', workflowBundle: bundle };
    const worker = await createMediaflowWorker({ ...options, client: h.service, taskQueue: h.taskQueue });
    const governor = await createGovernorWorker(options);
    const a = await h.plan(stills('capa'));
    const b = await h.plan(stills('capb'));

    const results = await governor.runUntil(
      worker.runUntil(async () => {
        await setCaps(h.temporal, key, { ...NO_CAPS, monthly: CAP });
        await until('the ledger runs', async () => ((await capsRunning(h.temporal, key)) ? true : null));
        const handles = await Promise.all(
          [a, b].map(
            async (plan) =>
              (await startOrAttach(h.temporal, plan, await storePlan(plan), h.taskQueue, key)).handle,
          ),
        );
        // Both held by the cap, with nothing left in flight, their line saying what all spent.
        const line = (spent: number) =>
          `monthly $0.30 (spent $${(spent / 1e6).toFixed(2).replace(/\.00$/, '')})`;
        let seen = '';
        const held = await until(
          () => `both campaigns paused by the cap (last seen ${seen})`,
          async () => {
            const views = await Promise.all(
              [a, b].map((plan) => campaignProgress(h.temporal, plan.campaign)),
            );
            const all = views.map((v) => v.progress);
            const spent = all.reduce((sum, p) => sum + p.spent, 0);
            seen = JSON.stringify(all.map((p) => [p.cap_reached, p.spent, running(p)]));
            return all.every((p) => p.cap_reached === line(spent) && running(p) === 0) ? all : null;
          },
        );
        const spentAtCap = held.reduce((sum, p) => sum + p.spent, 0);
        expect(spentAtCap).toBeLessThanOrEqual(CAP);
        expect(spentAtCap).toBeGreaterThanOrEqual(CAP - STILL); // the cap, not something else, stopped them
        expect(parseUsd(h.emulator.ledger().creditsCharged)).toBe(spentAtCap);
        expect(held.map((p) => p.outcome)).toEqual(['running', 'running']);
        const view = await readCaps(h.temporal, key);
        expect(view?.lines).toEqual([
          expect.objectContaining({ cap: 'monthly', model: null, limit: CAP, spent: spentAtCap }),
        ]);
        expect(new Set(view?.held)).toEqual(new Set(handles.map((handle) => handle.workflowId)));

        // Raised: both go on to their end.
        await setCaps(h.temporal, key, { ...NO_CAPS, monthly: 100 * STILL });
        return Promise.all(handles.map((handle) => handle.result()));
      }),
    );

    expect(results.map((p) => p.outcome)).toEqual(['completed', 'completed']);
    expect(results.map((p) => p.cap_reached)).toEqual([undefined, undefined]);
    // Every job made once: one prediction each, none paid twice.
    const ledger = h.emulator.ledger();
    expect(ledger.predictionsCreated).toBe(2 * JOBS);
    expect(ledger.duplicates).toBe(0);
    expect(parseUsd(ledger.creditsCharged)).toBe(2 * JOBS * STILL);
    for (const plan of [a, b]) {
      const keys = (await h.manifest(plan)).map((entry) => entry.key);
      expect(new Set(keys).size).toBe(JOBS);
      expect(keys).toHaveLength(JOBS);
    }
    // The ledger counted every dollar the service charged.
    const view = await readCaps(h.temporal, key);
    expect(view?.lines[0]?.spent).toBe(2 * JOBS * STILL);
    expect(view?.lines[0]?.committed).toBe(0);

    // Alerts: 50, 80 and 100 % of the $0.30 cap, once each; none of the raised $3 one (24 stills
    // are $0.72, under its half).
    const alerts = slack.received
      .map((r) => String(r.payload?.text ?? ''))
      .filter((text) => text.includes('monthly cap'));
    expect(alerts.map((text) => /(\d+) % reached/.exec(text)?.[1]).sort()).toEqual(['100', '50', '80']);
  }, 120_000);

  it('a newer engine continues an older engine’s ledger: caps and spend kept, the older one ended with the reason', async () => {
    const h = await harness({ timeScale: 1, latencyMs: 300, jitter: false });
    const options = { connection: h.connection, namespace: 'default', workflowBundle: suiteWorkflowBundle() };
    const governor = await createGovernorWorker(options);
    const key = `adopt-${h.taskQueue}`;
    // The older engine's ledger (today's code under its id): a $0.30 monthly cap, $0.21 spent.
    const older = LedgerDriver.at(Date.now());
    older.setCaps({ ...NO_CAPS, monthly: CAP }, Date.now());
    older.ask({ campaign: 'gone', model: 'I4', unit: STILL, count: 7 }, Date.now());
    older.spent('gone', { I4: 7 * STILL }, Date.now());
    const olderId = capsWorkflowId(key, ENGINE - 1);
    await governor.runUntil(async () => {
      await h.temporal.workflow.start(CAPS_WORKFLOW, {
        workflowId: olderId,
        taskQueue: GOVERNOR_TASK_QUEUE,
        args: [{ key, carried: older.state }],
      });
      await until('the older ledger publishes', async () =>
        (await h.temporal.workflow.getHandle(olderId).describe()).memo?.caps ? true : null,
      );
      // The first read of this engine takes it over.
      const view = await readCaps(h.temporal, key);
      expect(view?.lines).toEqual([
        expect.objectContaining({ cap: 'monthly', model: null, limit: CAP, spent: 7 * STILL, committed: 0 }),
      ]);
      const ended = await h.temporal.workflow.getHandle(olderId).describe();
      expect(ended.status.name).toBe('TERMINATED');
      const last = (await h.temporal.workflow.getHandle(olderId).fetchHistory()).events?.at(-1);
      expect(last?.workflowExecutionTerminatedEventAttributes?.reason).toBe(
        `caps carried over to mediaflow engine ${ENGINE}`,
      );
      expect(await capsRunning(h.temporal, key)).toBe(true);
      await h.temporal.workflow.getHandle(capsWorkflowId(key)).terminate('test over');
    });
  }, 60_000);

  it('one ledger per API key: the ledger a spelling of the URL had carries over, and every spelling reads the key’s', async () => {
    const h = await harness({ timeScale: 1, latencyMs: 300, jitter: false });
    const options = { connection: h.connection, namespace: 'default', workflowBundle: suiteWorkflowBundle() };
    const governor = await createGovernorWorker(options);
    const apiKey = `${h.taskQueue}-key`;
    const numeric = 'http://127.0.0.1:4010/v1';
    const named = 'http://localhost:4010/v1';
    // The ledger keyed on 127.0.0.1's origin with the key (as before): a $0.30 cap, $0.21 spent.
    const older = LedgerDriver.at(Date.now());
    older.setCaps({ ...NO_CAPS, monthly: CAP }, Date.now());
    older.spent('gone', { I4: 7 * STILL }, Date.now());
    const olderId = capsWorkflowId(keyFingerprint(numeric, apiKey));
    await governor.runUntil(async () => {
      await h.temporal.workflow.start(CAPS_WORKFLOW, {
        workflowId: olderId,
        taskQueue: GOVERNOR_TASK_QUEUE,
        args: [{ key: keyFingerprint(numeric, apiKey), carried: older.state }],
      });
      await until('the older ledger publishes', async () =>
        (await h.temporal.workflow.getHandle(olderId).describe()).memo?.caps ? true : null,
      );
      const line = expect.objectContaining({ cap: 'monthly', limit: CAP, spent: 7 * STILL });
      expect((await readCaps(h.temporal, keyNames(numeric, apiKey).caps))?.lines).toEqual([line]);
      // Another spelling of the same service: the same ledger, caps and spend.
      expect((await readCaps(h.temporal, keyNames(named, apiKey).caps))?.lines).toEqual([line]);
      expect(await capsRunning(h.temporal, keyNames(named, apiKey).caps)).toBe(true);
      const last = (await h.temporal.workflow.getHandle(olderId).fetchHistory()).events?.at(-1);
      expect(last?.workflowExecutionTerminatedEventAttributes?.reason).toBe(
        `caps carried over to the key's ledger ${capsWorkflowId(keyNames(named, apiKey).caps.ledger)}`,
      );
      await h.temporal.workflow
        .getHandle(capsWorkflowId(keyNames(named, apiKey).caps.ledger))
        .terminate('test over');
    });
  }, 60_000);
});
