/**
 * The outcome every drill must show after the chaos (issue 5): a valid manifest whose every file
 * matches its sha256, one for each job that could succeed; failures reported with the service's
 * own message; as many predictions as jobs plus regenerations (0 duplicates); and money spent
 * equal to the manifest's credits_used, never over the budget. Facts come from three independent
 * witnesses: the files on disk, the emulator's ledger and the workflow's final progress.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServiceClient } from '../../api/client/index.ts';
import { formatUsd, type Micros, parseUsd } from '../../api/money.ts';
import type { CampaignProgress, Failure } from '../../contract/campaign.ts';
import { DEFAULT_FAULTS, type Ledger } from '../../emulator/index.ts';
import type { Plan } from '../../plan/types.ts';
import { MANIFEST_FILE, ManifestEntry } from '../../records/manifest.ts';
import { materializeManifest } from '../../records/manifest-view.ts';
import { sha256Of } from '../../records/sha256.ts';
import { isS3Url, openStore, type Store } from '../../store/index.ts';
import type { CampaignRun } from '../lib/campaign.ts';
import { replayCampaign } from '../lib/replay.ts';
import type { Stack } from '../lib/stack.ts';
import { type Check, check } from './report.ts';

export interface ManifestFacts {
  lines: number;
  badLines: number;
  entries: ManifestEntry[];
  duplicateKeys: number;
}

/**
 * The manifest a user would get: a folder's manifest.jsonl, or in S3 mode the one made from the
 * records (what `run` writes into the bucket at the end), so "one line per job" is one record per job.
 */
export async function readManifest(
  outputDir: string,
  store: Store = openStore(outputDir),
): Promise<ManifestFacts> {
  const text = isS3Url(outputDir)
    ? await materializeManifest(outputDir, store)
    : // A run stopped early may have recorded nothing yet: no manifest is no jobs, not a crash.
      await readFile(join(outputDir, MANIFEST_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return '';
        throw error;
      });
  // A superseded line (an earlier take, records/manifest-view.ts) is not the job's output.
  const lines = text.split('\n').filter((line) => line !== '' && !line.includes('"superseded":true'));
  const entries: ManifestEntry[] = [];
  let badLines = 0;
  for (const line of lines) {
    try {
      entries.push(ManifestEntry.parse(JSON.parse(line)));
    } catch {
      badLines++;
    }
  }
  const duplicateKeys = entries.length - new Set(entries.map((e) => e.key)).size;
  return { lines: lines.length, badLines, entries, duplicateKeys };
}

/**
 * Files (or objects) whose bytes do not hash to the manifest's sha256 (or are missing), and
 * leftover partials in a folder (an S3 upload is never visible unfinished).
 */
export async function checkFiles(outputDir: string, store: Store, entries: readonly ManifestEntry[]) {
  let mismatched = 0;
  for (const entry of entries) {
    if ((await sha256Of(store, entry.file).catch(() => undefined)) !== entry.sha256) mismatched++;
  }
  const files = isS3Url(outputDir) ? [] : await readdir(outputDir, { recursive: true });
  const partials = files.filter((f) => f.endsWith('.part')).length;
  return { mismatched, partials };
}

const sum = (
  progress: CampaignProgress,
  field: 'succeeded' | 'failed' | 'skipped' | 'regenerated' | 'created',
) => progress.steps.reduce((n, s) => n + s[field], 0);

/** Each reported failure carries the message the service gave for that job's failed prediction. */
async function failuresCarryServiceMessages(stack: Stack, plan: Plan, failures: readonly Failure[]) {
  const service = createServiceClient({ baseUrl: stack.emulatorUrl, apiKey: stack.apiKey });
  let matched = 0;
  try {
    for (const failure of failures) {
      const job = plan.jobs.find((j) => j.name === failure.job);
      const prompt = String(job?.input.prompt ?? '');
      const messages = new Set<string>();
      for await (const result of service.search(prompt, { type: 'predictions', limit: 100 })) {
        const record = result.prediction;
        if (record?.input_parameters?.prompt !== prompt) continue;
        const message = (record as { error?: { message?: string } | null }).error?.message;
        if (message) messages.add(message);
      }
      if ([...messages].some((m) => failure.message.includes(m))) matched++;
    }
  } finally {
    await service.close();
  }
  return matched;
}

export async function verifyOutcome(
  stack: Stack,
  run: CampaignRun,
): Promise<{ numbers: Record<string, unknown>; checks: Check[]; ledger: Ledger }> {
  const { plan, progress } = run;
  // The campaign is over: the witnesses' own reads (search) must not meet the injected faults.
  await stack.setFaults(DEFAULT_FAULTS);
  const ledger = await stack.ledger();
  const store = stack.storeOf(plan.outputDir);
  const manifest = await readManifest(plan.outputDir, store);
  const files = await checkFiles(plan.outputDir, store, manifest.entries);
  const succeeded = sum(progress, 'succeeded');
  const failed = sum(progress, 'failed');
  const skipped = sum(progress, 'skipped');
  const regenerated = sum(progress, 'regenerated');
  const canSucceed = plan.jobs.length - failed - skipped;
  const planKeys = new Set(plan.jobs.map((j) => j.key));
  const foreign = manifest.entries.filter((e) => !planKeys.has(e.key)).length;
  const reported = progress.recentFailures;
  const withServiceMessage = await failuresCarryServiceMessages(stack, plan, reported);
  const manifestCredits: Micros = manifest.entries.reduce((n, e) => n + parseUsd(e.credits_used ?? '0'), 0);
  const charged = parseUsd(ledger.creditsCharged);
  const expectedPredictions = succeeded + failed + regenerated;
  const maxPerKey = Math.max(0, ...Object.values(ledger.byIdempotencyKey));
  const replay = await replayCampaign(stack.client, run.workflowId);

  const numbers = {
    jobs: plan.jobs.length,
    succeeded,
    failed,
    skipped,
    regenerated,
    outcome: progress.outcome,
    manifestLines: manifest.lines,
    badManifestLines: manifest.badLines,
    duplicateManifestKeys: manifest.duplicateKeys,
    shaMismatches: files.mismatched,
    partialFiles: files.partials,
    predictionsCreated: ledger.predictionsCreated,
    expectedPredictions,
    duplicates: ledger.duplicates,
    maxCreatesPerIdempotencyKey: maxPerKey,
    failedPredictions: ledger.failedPredictions,
    creditsCharged: ledger.creditsCharged,
    manifestCredits: formatUsd(manifestCredits),
    spentByWorkflow: formatUsd(progress.spent),
    budget: plan.budget === null ? null : formatUsd(plan.budget),
    reportedFailures: reported.length,
    failuresWithServiceMessage: withServiceMessage,
    requests: ledger.requests,
    rateLimited: ledger.rateLimited,
    runsReplayed: replay.runs,
  };
  const checks = [
    check(
      'manifest valid: every line parses, one line per job, only planned jobs',
      manifest.badLines === 0 && manifest.duplicateKeys === 0 && foreign === 0,
      `${manifest.lines} lines, ${manifest.badLines} unparsable, ${manifest.duplicateKeys} repeated keys, ${foreign} unplanned`,
    ),
    // A campaign stopped by its budget leaves jobs unrun on purpose: then every job that ran must
    // have its file; a completed one must have a file for every job that could succeed.
    progress.outcome === 'completed'
      ? check(
          'every job that can succeed has its file with a matching sha256',
          manifest.entries.length === canSucceed &&
            succeeded === canSucceed &&
            files.mismatched === 0 &&
            files.partials === 0,
          `${manifest.entries.length} files for ${canSucceed} jobs that could succeed (${plan.jobs.length} planned − ${failed} failed − ${skipped} skipped); ${files.mismatched} sha256 mismatches, ${files.partials} partial files`,
        )
      : check(
          'every succeeded job has its file with a matching sha256',
          manifest.entries.length === succeeded && files.mismatched === 0 && files.partials === 0,
          `${manifest.entries.length} files for ${succeeded} succeeded jobs (${plan.jobs.length} planned, outcome ${progress.outcome}); ${files.mismatched} sha256 mismatches, ${files.partials} partial files`,
        ),
    check(
      "failed jobs reported with the service's message",
      withServiceMessage === reported.length && reported.length === Math.min(failed, 20),
      `${failed} failed, ${reported.length} reported (the progress keeps the last 20), ${withServiceMessage} with the service's message`,
    ),
    check(
      'predictions created = jobs + regenerations, 0 duplicates',
      ledger.predictionsCreated === expectedPredictions && ledger.duplicates === 0 && maxPerKey <= 1,
      `ledger ${ledger.predictionsCreated} created, expected ${expectedPredictions} (${succeeded} succeeded + ${failed} failed + ${regenerated} regenerations); ${ledger.duplicates} duplicates`,
    ),
    check(
      'money spent = sum of manifest credits_used, never over the budget',
      charged === manifestCredits &&
        charged === progress.spent &&
        (plan.budget === null || charged <= plan.budget),
      `ledger $${ledger.creditsCharged}, manifest $${formatUsd(manifestCredits)}, workflow $${formatUsd(progress.spent)}, budget ${plan.budget === null ? 'none' : `$${formatUsd(plan.budget)}`}`,
    ),
    check(
      'every workflow run replays deterministically',
      replay.failures.length === 0,
      `${replay.runs} runs replayed, ${replay.failures.length} failed${replay.failures.length > 0 ? `: ${replay.failures[0]}` : ''}`,
    ),
  ];
  return { numbers, checks, ledger };
}
