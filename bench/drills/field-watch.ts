/**
 * The `field` drill's two witnesses from outside the engine: what `status` shows (the memo's
 * progress, read once a second as `status --watch` would), judged for quiet windows, and the
 * outage, played on the emulator from a moment of the campaign for a set time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { CampaignProgress } from '../../contract/campaign.ts';
import { campaignView } from '../../control/campaign-view.ts';
import type { campaignWorkflow } from '../../workflows/runtime/campaign.ts';
import type { Stack } from '../lib/stack.ts';

const READ_EVERY_MS = 1_000;

/** One reading of `status`: when, what it counted, and the pause it named (if any). */
export interface StatusSample {
  readonly at: number;
  readonly signature: string;
  readonly paused: CampaignProgress['paused'];
  /** Status said no worker polls the campaign's queue (a SIGKILLed one's replacement still starting). */
  readonly noWorker: boolean;
}

/**
 * What moves when a campaign makes progress: every count of every step (ended, created, links
 * refreshed…) and the money. A window where none of it changes is a window without progress.
 */
export function progressSignature(progress: CampaignProgress): string {
  const steps = progress.steps.map(({ running: _r, waiting: _w, ...counts }) => counts);
  return JSON.stringify({ steps, spent: progress.spent });
}

/** Reads the campaign's status until `ended()`; unanswered reads (a worker being killed) are skipped. */
export async function watchStatus(
  stack: Stack,
  handle: WorkflowHandle<typeof campaignWorkflow>,
  ended: () => boolean,
): Promise<StatusSample[]> {
  const samples: StatusSample[] = [];
  while (!ended()) {
    const view = await campaignView(stack.client, handle).catch(() => null);
    if (view) {
      samples.push({
        at: Date.now(),
        signature: progressSignature(view.progress),
        paused: view.progress.paused,
        noWorker: view.paused,
      });
    }
    await sleep(READ_EVERY_MS);
  }
  return samples;
}

export interface QuietWindow {
  /** The longest stretch without progress that `status` did not explain by naming a pause, ms. */
  readonly longestUnexplainedMs: number;
  /** The longest stretch without progress at all (pauses included), ms. */
  readonly longestMs: number;
  /** Every stretch of at least LONG_QUIET_MS: seconds from the first reading, and whether a pause was named. */
  readonly long: readonly QuietSpan[];
}

/** A long stretch without progress, and what status named in it (null: nothing). */
export interface QuietSpan {
  readonly fromS: number;
  readonly toS: number;
  readonly named: 'service_unavailable' | 'no worker polling' | null;
}

/** What `status` named in a reading: the outage, or no worker polling; null when nothing. */
const namedIn = (s: StatusSample): QuietSpan['named'] =>
  s.paused ? s.paused.kind : s.noWorker ? 'no worker polling' : null;

/** Quiet stretches this long are listed, so a slow drill shows where its time went. */
const LONG_QUIET_MS = 15_000;

/** Stretches between changes of the signature, from the first reading to the last. */
export function quietWindows(samples: readonly StatusSample[]): QuietWindow {
  let longestUnexplainedMs = 0;
  let longestMs = 0;
  const long: QuietSpan[] = [];
  const first = samples[0]?.at ?? 0;
  const seconds = (at: number) => Math.round((at - first) / 100) / 10;
  let since = samples[0];
  let named = since ? namedIn(since) : null;
  for (const [n, sample] of samples.entries()) {
    if (n === 0) continue;
    named ??= namedIn(sample);
    const quietMs = sample.at - since!.at;
    longestMs = Math.max(longestMs, quietMs);
    if (!named) longestUnexplainedMs = Math.max(longestUnexplainedMs, quietMs);
    if (sample.signature !== since!.signature || n === samples.length - 1) {
      if (quietMs >= LONG_QUIET_MS) long.push({ fromS: seconds(since!.at), toS: seconds(sample.at), named });
      since = sample;
      named = namedIn(sample);
    }
  }
  return { longestUnexplainedMs, longestMs, long };
}

/** Whether `status` named a service outage between `from` and `to` (ms since the epoch). */
export function outageNamed(samples: readonly StatusSample[], from: number, to: number): boolean {
  return samples.some(
    (s) => s.at >= from && s.at <= to && s.paused?.kind === 'service_unavailable' && s.paused.reason !== '',
  );
}

export interface Outage {
  startedAt: number | null;
  endedAt: number | null;
}

/**
 * Every /v1 request answered 503 for `durationMs`, from the moment the ledger counts
 * `atCreated` predictions; `after` are the faults put back once it is over.
 */
export async function playOutage(
  stack: Stack,
  {
    atCreated,
    durationMs,
    after,
  }: { atCreated: number; durationMs: number; after: { serverErrorRate: number } },
  finished: () => boolean,
): Promise<Outage> {
  const outage: Outage = { startedAt: null, endedAt: null };
  while (!finished() && (await stack.ledger()).predictionsCreated < atCreated) await sleep(100);
  if (finished()) return outage;
  await stack.setFaults({ serverErrorRate: 1 });
  outage.startedAt = Date.now();
  await sleep(durationMs);
  await stack.setFaults(after);
  outage.endedAt = Date.now();
  return outage;
}
