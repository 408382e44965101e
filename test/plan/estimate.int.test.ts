/** `estimate` against the real emulator, in-process: the service's prices, the balance and the verdict. */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, type ServiceClient } from '../../api/client/index.ts';
import { formatUsd } from '../../api/money.ts';
import { disagreements, estimatePlan, estimateText } from '../../cli/commands/estimate.ts';
import { type RunningEmulator, startEmulator } from '../../emulator/index.ts';
import { type Plan, planCampaign } from '../../plan/index.ts';
import { planOk } from './write-spec.ts';

const specs = path.resolve(import.meta.dirname, '../../specs');

/**
 * An example spec's plan, writing to a folder of the test's own: `estimate` reads the records where
 * the plan writes, and the README's first command leaves the example's outputs in specs/out.
 */
async function example(name: string): Promise<Plan> {
  const result = await planCampaign(path.join(specs, name));
  if (!result.ok) throw new Error('example spec refused');
  return { ...result.plan, outputDir: await mkdtemp(path.join(tmpdir(), 'mediaflow-estimate-')) };
}

describe('estimate', () => {
  let emulator: RunningEmulator;
  let client: ServiceClient;

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, timeScale: 0, credits: '20.00' });
    client = createServiceClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey });
  });
  afterAll(async () => {
    await client?.close();
    await emulator?.close();
  });

  it('agrees with the emulator on the product launch and fits its budget and balance', async () => {
    const report = await estimatePlan(await example('product-launch.yaml'), client);
    // Distinct priced inputs: I1 16:9; V4 standard 5 s; V4 pro 5 s (prompts and images do not count).
    expect(report.groups).toHaveLength(3);
    expect(formatUsd(report.serviceTotal)).toBe('10.20');
    expect(report.localTotal).toBe(report.serviceTotal);
    expect(disagreements(report)).toEqual([]);
    expect(formatUsd(report.balance)).toBe('20.00');
    expect(report.overBudget || report.overBalance).toBe(false);
    expect(estimateText(report)).toContain('ok: $10.20 fits (budget $40.00, balance $20.00)');
  });

  it('shows what review gates hold back: the reviewed stills, and the worst case with every video', async () => {
    const report = await estimatePlan(await example('review-launch.yaml'), client);
    expect(report.review).toEqual({
      reviewedUsd: 1_440_000,
      beforeApprovalsUsd: 1_440_000,
      worstCaseUsd: 9_240_000,
    });
    expect(estimateText(report)).toContain(
      'review gates: reviewed steps $1.44; before any approval $1.44; worst case (everything approved) $9.24',
    );
    expect((await estimatePlan(await example('product-launch.yaml'), client)).review).toBeNull();
  });

  it('has the service price the V5 jobs the catalogue cannot', async () => {
    const report = await estimatePlan(await example('video-shootout.yaml'), client);
    const v5 = report.steps.find((step) => step.model === 'V5')!;
    expect(v5.unpricedLocally).toBe(2);
    expect(v5.serviceUsd).toBeGreaterThan(0);
    expect(report.serviceTotal).toBe(report.localTotal + v5.serviceUsd);
  });

  it('refuses a plan over the budget, and one over the balance', async () => {
    const overBudget = await planOk(`version: 1
campaign: tight
budget: { max_usd: "1.00" }
steps:
  - { id: a, model: I3, matrix: { n: [1, 2, 3, 4, 5] }, input: { prompt: "take {{n}}" } }
`);
    // 5 × I3 at $0.25 = $1.25 > $1.00
    const budgetReport = await estimatePlan(overBudget, client);
    expect(budgetReport).toMatchObject({ overBudget: true, overBalance: false });
    expect(estimateText(budgetReport)).toContain('refused: $1.25 is over the budget of $1.00');

    const catalogue = await estimatePlan(await example('catalogue-5k.yaml'), client);
    // 4,875 × $0.03 = $146.25 fits the $150 budget but not the $20 balance, in one estimate call.
    expect(catalogue.groups).toHaveLength(1);
    expect(catalogue).toMatchObject({ overBudget: false, overBalance: true });
  });
});
