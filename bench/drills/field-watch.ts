/**
 * The `field` drill's two witnesses from outside the engine: what `status` shows (the memo's
 * progress, read once a second as `status --watch` would), judged for quiet windows, and the
 * outage, played on the emulator from a moment of the campaign for a set time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { CampaignProgress } from '../../contract/campaign.ts';
import { campaignView } from '../../control/campaign.ts';
import type { campaignWorkflow } from '../../workflows/campaign.ts';
import type { Stack } from '../lib/stack.ts';

const READ_EVERY_MS = 1_000;

/** One reading of `status`: when, what it counted, and the pause it named (if any). */
export interface StatusSample {
  readonly at: number;
  readonly signature: string;
  readonly paused: CampaignProgress['paused'];
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
}

/** Stretches between changes of the signature, from the first reading to the last. */
export function quietWindows(samples: readonly StatusSample[]): QuietWindow {
  let longestUnexplainedMs = 0;
  let longestMs = 0;
  let since = samples[0];
  let named = Boolean(since?.paused);
  for (const sample of samples.slice(1)) {
    named ||= Boolean(sample.paused);
    const quietMs = sample.at - since!.at;
    longestMs = Math.max(longestMs, quietMs);
    if (!named) longestUnexplainedMs = Math.max(longestUnexplainedMs, quietMs);
    if (sample.signature !== since!.signature) {
      since = sample;
      named = Boolean(sample.paused);
    }
  }
  return { longestUnexplainedMs, longestMs };
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
