/**
 * Exports every run of a finished campaign with the real CLI (`temporal workflow show --output
 * json`, the format CI replays), with its temporary folder replaced by a stable path, and says
 * what each run holds, read from the history itself rather than from what the recorder intended.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { CampaignProgress } from '../../contract/campaign.ts';
import { findTemporalCli } from '../../worker/temporal-cli.ts';
import type { Campaign } from './stack.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface HistoryJson {
  events: Record<string, Json>[];
}

export interface RunSummary {
  file: string;
  events: number;
  /** Items of finishPredictions naming an heir. */
  heirs: number;
  /** finishPredictions activities: the predictions of one create batch finished together. */
  finishBatches: number;
  /** Creates (batched or a heir's) answered 429, reported as `retry` outcomes. */
  retries429: number;
  /** readServiceLimits activities: the first read of run 1, then one per re-read after a 429. */
  limitReads: number;
  /** Shares its rate governor signalled. */
  shares: number;
  /** Temporary files the end-of-campaign sweep removed (sweepUnfinished's result), or null without one. */
  swept: number | null;
  /** Creates or finishes of a regeneration (regen > 0). */
  regenerations: number;
  continuedAsNew: boolean;
  /** The patches (docs/engine.md) the run took: `patched()` markers. */
  patches: string[];
  /** From the campaign's result, on its last run only. */
  outcome: string | null;
  failed: number;
  skipped: number;
}

const JSON_PLAIN = Buffer.from('json/plain').toString('base64');

export async function exportCampaign(campaign: Campaign, outDir: string): Promise<RunSummary[]> {
  const cli = await findTemporalCli();
  const workflowId = campaign.handle.workflowId;
  // The newest run first: each names the run it continued, back to the first.
  const runIds: string[] = [];
  let runId: string | undefined = (await campaign.handle.describe()).runId;
  const histories: HistoryJson[] = [];
  while (runId) {
    const { stdout } = await promisify(execFile)(
      cli,
      [
        'workflow',
        'show',
        '--address',
        campaign.temporal.address,
        '-w',
        workflowId,
        '-r',
        runId,
        '--output',
        'json',
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const history = JSON.parse(stdout) as HistoryJson;
    runIds.unshift(runId);
    histories.unshift(history);
    const started = history.events[0]?.workflowExecutionStartedEventAttributes as Record<string, Json>;
    runId = (started?.continuedExecutionRunId as string | undefined) || undefined;
  }
  await mkdir(outDir, { recursive: true });
  const stable = `/srv/corpus/${campaign.shape}`;
  const summaries: RunSummary[] = [];
  for (const [n, history] of histories.entries()) {
    const file = histories.length === 1 ? `${campaign.shape}.json` : `${campaign.shape}-run${n + 1}.json`;
    const clean = withPathReplaced(
      history as unknown as Json,
      campaign.dir,
      stable,
    ) as unknown as HistoryJson;
    await writeFile(join(outDir, file), `${JSON.stringify(clean)}\n`);
    summaries.push(summarize(file, clean));
  }
  return summaries;
}

/**
 * The folder appears in plain strings (failure messages) and inside payloads, which the CLI prints
 * base64-encoded: those are decoded, rewritten and encoded again, so a text replace of the file
 * alone would miss most of them.
 */
function withPathReplaced(value: Json, from: string, to: string): Json {
  if (typeof value === 'string') return value.replaceAll(from, to);
  if (Array.isArray(value)) return value.map((v) => withPathReplaced(v, from, to));
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: Json } = {};
  for (const [key, v] of Object.entries(value)) out[key] = withPathReplaced(v, from, to);
  if (isJsonPayload(value) && typeof value.data === 'string') {
    const text = Buffer.from(value.data, 'base64').toString('utf8');
    out.data = Buffer.from(text.replaceAll(from, to), 'utf8').toString('base64');
  }
  return out;
}

function isJsonPayload(value: { [key: string]: Json }): boolean {
  const metadata = value.metadata;
  return (
    typeof metadata === 'object' &&
    metadata !== null &&
    !Array.isArray(metadata) &&
    metadata.encoding === JSON_PLAIN
  );
}

/** The decoded JSON payloads of one event attribute (`input`, `result`, a marker's `patch-data`). */
function payloadsOf(attributes: Json | undefined, field: 'input' | 'result' | 'patch-data'): unknown[] {
  if (!attributes || typeof attributes !== 'object' || Array.isArray(attributes)) return [];
  const holder = attributes[field] as { payloads?: { data?: string }[] } | undefined;
  return (holder?.payloads ?? []).map((p) =>
    JSON.parse(Buffer.from(p.data ?? '', 'base64').toString('utf8')),
  );
}

function summarize(file: string, history: HistoryJson): RunSummary {
  const summary: RunSummary = {
    file,
    events: history.events.length,
    heirs: 0,
    finishBatches: 0,
    retries429: 0,
    limitReads: 0,
    shares: 0,
    swept: null,
    regenerations: 0,
    continuedAsNew: false,
    patches: [],
    outcome: null,
    failed: 0,
    skipped: 0,
  };
  // Completed activities name their scheduled event; the activity type lives only there.
  const typeOf = new Map<string, string>();
  for (const event of history.events) {
    const scheduled = event.activityTaskScheduledEventAttributes as Record<string, Json> | undefined;
    if (scheduled) {
      const type = (scheduled.activityType as { name: string }).name;
      typeOf.set(String(event.eventId), type);
      if (type === 'readServiceLimits') summary.limitReads++;
      const [input] = payloadsOf(scheduled, 'input') as {
        regen?: number;
        items?: { regen: number; heir?: unknown }[];
      }[];
      if (type === 'finishPredictions')
        summary.heirs += input?.items?.filter((item) => item.heir).length ?? 0;
      if (type === 'finishPredictions') summary.finishBatches++;
      if ((input?.regen ?? 0) > 0 || input?.items?.some((item) => item.regen > 0)) summary.regenerations++;
    }
    const completed = event.activityTaskCompletedEventAttributes as Record<string, Json> | undefined;
    if (completed) {
      const type = typeOf.get(String(completed.scheduledEventId));
      const [result] = payloadsOf(completed, 'result') as unknown[];
      const outcomes =
        type === 'createPredictions'
          ? (result as { kind: string }[])
          : type === 'finishPredictions'
            ? (result as { heir?: { kind: string } | null }[])
                .map((item) => item.heir)
                .filter((o) => o != null)
            : [];
      summary.retries429 += outcomes.filter((o) => o?.kind === 'retry').length;
      if (type === 'sweepUnfinished') summary.swept = result as number;
    }
    const signaled = event.workflowExecutionSignaledEventAttributes as Record<string, Json> | undefined;
    if (signaled?.signalName === 'governor-share') summary.shares++;
    if (event.workflowExecutionContinuedAsNewEventAttributes) summary.continuedAsNew = true;
    const marker = event.markerRecordedEventAttributes as { details?: Record<string, Json> } | undefined;
    const [patch] = payloadsOf(marker?.details, 'patch-data') as { id?: string }[];
    if (patch?.id) summary.patches.push(patch.id);
    const done = event.workflowExecutionCompletedEventAttributes;
    if (done) {
      const progress = payloadsOf(done, 'result')[0] as CampaignProgress;
      summary.outcome = progress.outcome;
      summary.failed = progress.steps.reduce((n, step) => n + step.failed, 0);
      summary.skipped = progress.steps.reduce((n, step) => n + step.skipped, 0);
    }
  }
  return summary;
}
