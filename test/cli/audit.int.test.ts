/**
 * `mediaflow audit` against the emulator's own ledger: on the README's example campaign and on a
 * reviewed campaign with a retake and a rejection, every charge is matched to a job and take, and
 * the records, the service's figures for the campaign's predictions and the account's usage agree
 * to the cent with what the emulator charged.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseUsd } from '../../api/money.ts';
import { auditCampaign, auditClean } from '../../cli/commands/audit.ts';
import { harness } from '../engine/harness.ts';
import { keysOf, review, reviewedSpec, until } from '../engine/review-client.ts';
import { temporalAddress } from '../helpers/temporal.ts';
import { cleanEnv, mediaflow } from './helpers.ts';

const EXAMPLE = new URL('../../specs/product-launch.yaml', import.meta.url);

describe('audit', () => {
  it("agrees with the service's ledger to the cent on the README's example campaign", async () => {
    const h = await harness();
    const plan = await h.plan(await readFile(EXAMPLE, 'utf8'));
    expect((await h.run(plan)).outcome).toBe('completed');
    const charged = parseUsd(h.emulator.ledger().creditsCharged);
    const names = new Map(plan.jobs.map((job) => [job.key, job.name]));
    const audit = await auditCampaign(h.service, plan.outputDir, plan.campaign, names);
    expect(auditClean(audit)).toBe(true);
    expect(audit.charges).toHaveLength(30);
    expect(audit.charges.every((charge) => charge.kind === 'take' && charge.take === 0)).toBe(true);
    expect([audit.recordedTotal, audit.chargedTotal, audit.account.credits]).toEqual([
      charged,
      charged,
      charged,
    ]);

    const env = cleanEnv({
      TEMPORAL_ADDRESS: temporalAddress(),
      MEDIAFLOW_API_URL: h.emulator.baseUrl,
      MEDIAFLOW_API_KEY: h.emulator.apiKey,
    });
    const cli = await mediaflow(['audit', join(h.dir, 'spec.yaml')], { cwd: h.dir, env });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain(`records: $${h.emulator.ledger().creditsCharged};`);
    expect(cli.stdout).toContain('ok: the records and the service agree');
  }, 120_000);

  it('matches each take of a retaken still, and skips nothing paid', async () => {
    const h = await harness();
    const plan = await h.plan(reviewedSpec('true'));
    const [kettle, lamp, watch] = keysOf(plan, 'still') as [string, string, string];
    const result = await h.run(plan, async (handle) => {
      await until(h, handle, (still) => still.awaiting_review === 3);
      await review(handle, [
        { key: kettle, action: 'approve' },
        { key: lamp, action: 'reject' },
        { key: watch, action: 'regenerate' },
      ]);
      await until(h, handle, (still) => still.awaiting_review === 1 && still.regenerated === 1);
      await review(handle, [{ key: watch, action: 'approve' }]);
    });
    expect(result.outcome).toBe('completed');
    const charged = parseUsd(h.emulator.ledger().creditsCharged);
    const audit = await auditCampaign(h.service, plan.outputDir, plan.campaign);
    expect(auditClean(audit)).toBe(true);
    expect(audit.charges.filter((charge) => charge.key === watch).map((charge) => charge.take)).toEqual([
      0, 1,
    ]);
    // Three stills, the watch's retake, two clips (the rejected lamp's was never made).
    expect(audit.charges).toHaveLength(6);
    expect([audit.recordedTotal, audit.chargedTotal]).toEqual([charged, charged]);
  }, 120_000);
});
