/** What the stop drills check once the campaign stopped and ran again (stop-drill.ts). */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatUsd, parseUsd } from '../../api/money.ts';
import type { CampaignProgress } from '../../contract/campaign.ts';
import type { Plan } from '../../plan/types.ts';
import type { Stack } from '../lib/stack.ts';
import { type Check, check } from './report.ts';
import { paidOnce } from './stop-kit.ts';
import { readManifest } from './verify.ts';

/** The goal: a named stop within a minute of its cause. */
export const STOP_WITHIN_MS = 60_000;

const total = (progress: CampaignProgress, field: 'succeeded' | 'cached' | 'failed' | 'created') =>
  progress.steps.reduce((n, s) => n + s[field], 0);

/** Every file of the manifest hashes to its sha256; one line per job. */
async function filesCheck(plan: Plan): Promise<Check> {
  const manifest = await readManifest(plan.outputDir);
  let mismatched = 0;
  for (const entry of manifest.entries) {
    const data = await readFile(join(plan.outputDir, entry.file)).catch(() => null);
    if (!data || createHash('sha256').update(data).digest('hex') !== entry.sha256) mismatched++;
  }
  return check(
    'every job has its file, once, with a matching sha256',
    manifest.entries.length === plan.jobs.length &&
      manifest.badLines === 0 &&
      manifest.duplicateKeys === 0 &&
      mismatched === 0,
    `${manifest.entries.length} manifest entries for ${plan.jobs.length} jobs, ${manifest.badLines} unparsable, ` +
      `${manifest.duplicateKeys} repeated keys, ${mismatched} sha256 mismatches`,
  );
}

/** What both drills check of the stop, the re-run and the money. */
export async function stopAndRerunChecks(
  stack: Stack,
  plan: Plan,
  outcome: string,
  stopped: CampaignProgress,
  stopMs: number | null,
  finished: CampaignProgress,
): Promise<{ checks: Check[]; numbers: Record<string, unknown> }> {
  const ledger = await stack.ledger();
  const manifest = await readManifest(plan.outputDir);
  const manifestCredits = manifest.entries.reduce((n, e) => n + parseUsd(e.credits_used ?? '0'), 0);
  const charged = parseUsd(ledger.creditsCharged);
  const paid = paidOnce(ledger, plan.jobs.length);
  const numbers = {
    jobs: plan.jobs.length,
    stoppedWith: stopped.outcome,
    stopMessage: stopped.stopMessage ?? null,
    stopMs,
    atStop: {
      succeeded: total(stopped, 'succeeded'),
      created: total(stopped, 'created'),
      failed: total(stopped, 'failed'),
      spent: formatUsd(stopped.spent),
    },
    rerun: {
      outcome: finished.outcome,
      succeeded: total(finished, 'succeeded'),
      cached: total(finished, 'cached'),
      created: total(finished, 'created'),
      spent: formatUsd(finished.spent),
    },
    predictionsCreated: ledger.predictionsCreated,
    idempotencyKeys: Object.keys(ledger.byIdempotencyKey).length,
    duplicates: ledger.duplicates,
    creditsCharged: ledger.creditsCharged,
    manifestCredits: formatUsd(manifestCredits),
    requests: ledger.requests,
  };
  const checks = [
    check(
      `the campaign stops with ${outcome}, with a message`,
      stopped.outcome === outcome && Boolean(stopped.stopMessage),
      `outcome ${stopped.outcome}: ${stopped.stopMessage ?? '(no message)'}`,
    ),
    check(
      'it stops within a minute of the cause',
      stopMs !== null && stopMs <= STOP_WITHIN_MS,
      stopMs === null ? 'the cause was never seen' : `${(stopMs / 1000).toFixed(1)} s`,
    ),
    check(
      'the stop left work to do (it struck mid-run)',
      total(stopped, 'succeeded') > 0 && total(stopped, 'succeeded') < plan.jobs.length,
      `${total(stopped, 'succeeded')} of ${plan.jobs.length} done at the stop`,
    ),
    check('the re-run completes', finished.outcome === 'completed', `outcome ${finished.outcome}`),
    check('each job paid once', paid.ok, paid.detail),
    await filesCheck(plan),
    check(
      'money spent = manifest credits = what the two runs spent',
      charged === manifestCredits && charged === stopped.spent + finished.spent,
      `ledger $${ledger.creditsCharged}, manifest $${formatUsd(manifestCredits)}, runs $${formatUsd(stopped.spent)} + $${formatUsd(finished.spent)}`,
    ),
  ];
  return { checks, numbers };
}
