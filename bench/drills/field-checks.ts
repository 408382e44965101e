/**
 * The `field` drill's goals (issue 21), each from witnesses the engine does not control: the
 * emulator's ledger (predictions, money), the files and records in the output folder, what
 * `status` showed while it ran (field-watch.ts) and what `report` would print.
 */
import { createServiceClient } from '../../api/client/index.ts';
import { formatUsd, type Micros, parseUsd, tryParseUsd } from '../../api/money.ts';
import type { CampaignProgress, StepProgress } from '../../contract/campaign.ts';
import { DEFAULT_FAULTS } from '../../emulator/index.ts';
import type { Plan } from '../../plan/types.ts';
import { readDecisions } from '../../records/decisions.ts';
import { readRefusals } from '../../records/refusals.ts';
import { readUnsaved, unsavedCharges } from '../../records/unsaved.ts';
import { buildModel } from '../../review/model.ts';
import { sourcesOf } from '../../review/sources.ts';
import { replayCampaign } from '../lib/replay.ts';
import type { Stack } from '../lib/stack.ts';
import type { Outage } from './field-watch.ts';
import { outageNamed, type QuietWindow, quietWindows, type StatusSample } from './field-watch.ts';
import { type Check, check } from './report.ts';
import { checkFiles, readManifest } from './verify.ts';

/** One `run` of the campaign: its result, what `status` showed, its wall and when it ended. */
export interface FieldRun {
  readonly workflowId: string;
  readonly progress: CampaignProgress;
  readonly samples: readonly StatusSample[];
  readonly wallMs: number;
  readonly endedAt: number;
}

export interface FieldFacts {
  /** Ledger credits before the drill's campaign (the fault-free run's), subtracted. */
  readonly chargedBefore: Micros;
  /** Predictions in the ledger before it (the fault-free run's), subtracted likewise. */
  readonly createdBefore: number;
  readonly outage: Outage;
  readonly outageMs: number;
  readonly faultFreeWallMs: number | null;
  readonly kills: number;
  readonly plannedKills: number;
  readonly diskSkipped: string | null;
  /** When the disk was full (ms since the epoch); null when it never was. */
  readonly diskFullAt: number | null;
}

/** A 2-minute window without progress that `status` does not explain is a hang. */
export const HANG_MS = 120_000;
/** The disk-full stop must come within a minute (issue 21, "Done when"). */
const STOP_WITHIN_MS = 60_000;

/** Each way a job can end; a job counted in two would make the sum exceed the plan. */
const ENDED = ['succeeded', 'cached', 'failed', 'skipped', 'canceled', 'refused', 'timed_out'] as const;
const ended = (s: StepProgress) => ENDED.reduce((n, field) => n + (s[field] ?? 0), 0);
const total = (progress: CampaignProgress, field: keyof StepProgress) =>
  progress.steps.reduce((n, s) => n + (Number(s[field] ?? 0) || 0), 0);

export async function fieldChecks(
  stack: Stack,
  plan: Plan,
  runs: readonly FieldRun[],
  facts: FieldFacts,
): Promise<{ checks: Check[]; numbers: Record<string, unknown> }> {
  const final = runs.at(-1)!.progress;
  // The witnesses' own reads must not meet the injected faults.
  await stack.setFaults(DEFAULT_FAULTS);
  const ledger = await stack.ledger();
  const store = stack.storeOf(plan.outputDir);
  const manifest = await readManifest(plan.outputDir, store);
  const files = await checkFiles(plan.outputDir, store, manifest.entries);
  const refusals = [...(await readRefusals(plan.outputDir, plan.campaign, store)).values()].flat();

  const charged = parseUsd(ledger.creditsCharged) - facts.chargedBefore;
  const statusSpent = runs.reduce((n, r) => n + r.progress.spent, 0);
  const load = await sourcesOf(plan, { readDecisions, progress: async () => final });
  const reportSpent = buildModel(await load()).totals.spent;
  const manifestSpent = manifest.entries.reduce((n, e) => n + parseUsd(e.credits_used ?? '0'), 0);
  const refusalSpent = refusals.reduce((n, r) => n + parseUsd(r.credits_used), 0);
  const saved = new Set(manifest.entries.map((e) => e.prediction_id));
  const unsaved = await readUnsaved(store, plan.campaign);
  const unsavedSpent = unsavedCharges(unsaved, saved);
  const maxPerKey = Math.max(0, ...Object.values(ledger.byIdempotencyKey));

  const unended = final.steps.filter((s) => ended(s) !== s.planned || s.running + s.waiting > 0);
  const quiet: QuietWindow[] = runs.map((r) => quietWindows(r.samples));
  const longest = Math.max(...quiet.map((q) => q.longestUnexplainedMs));
  const samples = runs.flatMap((r) => r.samples);
  const { startedAt, endedAt } = facts.outage;
  const named = startedAt !== null && outageNamed(samples, startedAt, (endedAt ?? Date.now()) + 30_000);
  const wallMs = runs.reduce((n, r) => n + r.wallMs, 0);
  const wallGoalMs = facts.faultFreeWallMs === null ? null : facts.faultFreeWallMs * 1.3 + facts.outageMs;
  const stopMs = facts.diskFullAt === null ? null : runs[0]!.endedAt - facts.diskFullAt;
  const replay = await replayCampaign(stack.client, runs.at(-1)!.workflowId);

  const moneyAgrees =
    statusSpent === charged &&
    reportSpent === charged &&
    manifestSpent + refusalSpent + unsavedSpent === charged;
  const drillStart = runs[0]!.endedAt - runs[0]!.wallMs;
  const numbers = {
    jobs: plan.jobs.length,
    runs: runs.map((r) => ({
      outcome: r.progress.outcome,
      wallMs: r.wallMs,
      spent: formatUsd(r.progress.spent),
    })),
    ended: Object.fromEntries(ENDED.map((field) => [field, total(final, field)])),
    regenerated: total(final, 'regenerated'),
    linksRefreshed: total(final, 'links_refreshed'),
    outputsExpired: total(final, 'outputs_expired'),
    downloadFailed: total(final, 'download_failed'),
    downloadStalled: total(final, 'download_stalled'),
    refusedPrompts: ledger.refusedPrompts,
    flaggedOutputs: ledger.flaggedOutputs,
    refusalRecords: refusals.length,
    predictionsCreated: ledger.predictionsCreated - facts.createdBefore,
    duplicates: ledger.duplicates,
    maxCreatesPerIdempotencyKey: maxPerKey,
    money: {
      ledger: formatUsd(charged),
      status: formatUsd(statusSpent),
      report: formatUsd(reportSpent),
      manifest: formatUsd(manifestSpent),
      refusalRecords: formatUsd(refusalSpent),
      unsavedRecords: formatUsd(unsavedSpent),
      ...(!moneyAgrees && {
        unrecordedCharges: await unrecordedCharges(
          stack,
          new Set([
            ...manifest.entries.map((e) => e.prediction_id),
            ...refusals.flatMap((r) => (r.prediction_id === undefined ? [] : [r.prediction_id])),
            ...unsaved.map((r) => r.prediction_id),
          ]),
          drillStart,
        ),
      }),
    },
    quietWindowsMs: quiet,
    outage: {
      ...facts.outage,
      // Seconds from the first run's first status reading, like the quiet windows.
      fromS: startedAt === null ? null : (startedAt - (runs[0]!.samples[0]?.at ?? startedAt)) / 1000,
      namedByStatus: named,
    },
    diskStopMs: stopMs,
    wallMs,
    wallGoalMs,
    requests: ledger.requests,
    runsReplayed: replay.runs,
  };
  const checks = [
    check(
      'faults applied: every planned SIGKILL, the outage, and the full disk unless skipped',
      facts.kills === facts.plannedKills &&
        startedAt !== null &&
        endedAt !== null &&
        (facts.diskSkipped !== null || facts.diskFullAt !== null),
      `${facts.kills}/${facts.plannedKills} SIGKILLs; outage ${startedAt === null ? 'never started' : `${Math.round(((endedAt ?? 0) - startedAt) / 1000)} s`}; disk ${facts.diskSkipped === null ? (facts.diskFullAt === null ? 'never filled' : 'filled') : `skipped (${facts.diskSkipped})`}`,
    ),
    ...(facts.diskSkipped === null
      ? [
          check(
            'the full disk stops the campaign with disk_full within a minute; after freeing it, run again completes',
            runs[0]!.progress.outcome === 'disk_full' &&
              stopMs !== null &&
              stopMs <= STOP_WITHIN_MS &&
              runs.length === 2,
            `first run ${runs[0]!.progress.outcome} ${stopMs === null ? '' : `${(stopMs / 1000).toFixed(1)} s after the disk was full`}; ${runs.length} runs`,
          ),
        ]
      : []),
    check(
      'the campaign completes and every job ends in exactly one named outcome',
      final.outcome === 'completed' &&
        unended.length === 0 &&
        manifest.entries.length === total(final, 'succeeded') + total(final, 'cached'),
      `outcome ${final.outcome}; ${ENDED.map((f) => `${total(final, f)} ${f}`).join(', ')} of ${plan.jobs.length}; ` +
        `${unended.length} steps whose counts do not add up; ${manifest.entries.length} manifest entries`,
    ),
    check(
      'never hangs: no 2-minute window without progress in status but a pause status names; the outage is named',
      longest < HANG_MS && named,
      `longest unexplained quiet window ${(longest / 1000).toFixed(1)} s; status ${named ? 'named' : 'did not name'} the outage`,
    ),
    check(
      '0 duplicate predictions',
      ledger.duplicates === 0 && maxPerKey <= 1,
      `${ledger.predictionsCreated - facts.createdBefore} predictions, ${ledger.duplicates} duplicates, at most ${maxPerKey} per idempotency key`,
    ),
    check(
      'money: status, report, manifest + records all equal the ledger to the micro-dollar',
      moneyAgrees,
      `ledger $${formatUsd(charged)}; status $${formatUsd(statusSpent)} (${runs.length} runs), report $${formatUsd(reportSpent)}, ` +
        `manifest $${formatUsd(manifestSpent)} + refusal records $${formatUsd(refusalSpent)} + unsaved $${formatUsd(unsavedSpent)}`,
    ),
    check(
      'every file matches its sha256, no partial file, the manifest parses',
      files.mismatched === 0 &&
        files.partials === 0 &&
        manifest.badLines === 0 &&
        manifest.duplicateKeys === 0,
      `${files.mismatched} mismatches, ${files.partials} partials, ${manifest.badLines} bad lines, ${manifest.duplicateKeys} repeated keys`,
    ),
    check(
      'every workflow run replays deterministically',
      replay.failures.length === 0,
      `${replay.runs} runs, ${replay.failures.length} failed ${replay.failures[0] ?? ''}`,
    ),
    ...(wallGoalMs === null
      ? []
      : [
          check(
            'wall within 1.3 × the fault-free run plus the outage',
            wallMs <= wallGoalMs,
            `${(wallMs / 1000).toFixed(1)} s against ${(wallGoalMs / 1000).toFixed(1)} s (fault-free ${((facts.faultFreeWallMs ?? 0) / 1000).toFixed(1)} s)`,
          ),
        ]),
  ];
  return { checks, numbers };
}

/**
 * When the money disagrees: every prediction the service charged for that neither a manifest
 * line nor a flagged output's refusal record names, so the report says which.
 */
async function unrecordedCharges(stack: Stack, recorded: ReadonlySet<string>, after: number) {
  const client = createServiceClient({ baseUrl: stack.emulatorUrl, apiKey: stack.apiKey });
  const found: Record<string, unknown>[] = [];
  for await (const result of client.search('', { createdAfter: new Date(after).toISOString() })) {
    const p = result.prediction;
    const usd = tryParseUsd(p?.credits_used) ?? 0;
    if (!p || usd === 0 || recorded.has(String(p.id))) continue;
    found.push({
      id: p.id,
      status: p.status,
      usd: formatUsd(usd),
      error: p.error?.code,
      created: p.created_at,
    });
  }
  return found;
}
