/**
 * Outputs the service charged for that were never saved: a download that failed for good (short
 * bodies, stalls, an expired output). One create-once record per prediction,
 * `.mediaflow/unsaved/<campaign>/<prediction tag>.json`, written by the finish that gave up,
 * before its job is reported failed and its charge counted.
 *
 * They keep the money true in two places:
 *  - the campaign's records add up to what the service charged (records/manifest.ts,
 *    paidInAllRuns), though no manifest line holds such an output;
 *  - a later run that fetches the output after all (its create adopts the claimed prediction) is
 *    told it was paid for already, so the fetch adds nothing to that run's spend (the issue's
 *    "a later run re-fetches it for free"; the full `field` drill counted one clip twice).
 * A record whose prediction a manifest line names later is paid once: the line's.
 */
import { z } from 'zod';
import { type Micros, tryParseUsd } from '../api/money.ts';
import { type Store, unsavedOf } from '../store/index.ts';
import { parseJson } from './jsonl.ts';
import { predictionTag } from './prediction-tag.ts';

export const UnsavedRecord = z.object({
  /** The job's key (plan/keys.ts). */
  key: z.string().regex(/^[0-9a-f]{32}$/),
  /** The take (regeneration). */
  take: z.number().int().nonnegative(),
  prediction_id: z.string(),
  /** What the service charged for it, decimal string. */
  credits_used: z.string(),
  /** The failure policy's kind the job ended with (download_failed, download_stalled, output_expired). */
  failure: z.string(),
  message: z.string(),
  at: z.string(),
});
export type UnsavedRecord = z.infer<typeof UnsavedRecord>;

const nameOf = (campaign: string, predictionId: string) =>
  `${unsavedOf(campaign)}${predictionTag(predictionId)}.json`;

/** Records it once; a record already there (an earlier attempt's) is kept. */
export async function writeUnsaved(store: Store, campaign: string, record: UnsavedRecord): Promise<void> {
  const parsed = UnsavedRecord.parse(record);
  await store.createOnce(nameOf(campaign, parsed.prediction_id), `${JSON.stringify(parsed)}\n`);
}

/** Whether an earlier finish gave up on this prediction's output (and so counted its charge). */
export async function wasUnsaved(store: Store, campaign: string, predictionId: string): Promise<boolean> {
  const text = await store.read(nameOf(campaign, predictionId));
  return text !== undefined && UnsavedRecord.safeParse(parseJson(text)).success;
}

export async function readUnsaved(store: Store, campaign: string): Promise<UnsavedRecord[]> {
  const records: UnsavedRecord[] = [];
  for await (const name of store.list(unsavedOf(campaign))) {
    if (!name.endsWith('.json')) continue;
    const text = await store.read(name);
    const parsed = text === undefined ? null : UnsavedRecord.safeParse(parseJson(text));
    // A file someone else put there is not a record.
    if (parsed?.success) records.push(parsed.data);
  }
  return records;
}

/**
 * The records whose output no later run saved (`saved`: prediction ids a manifest line names):
 * one that was saved is paid once, as its line's take.
 */
export function stillUnsaved(
  records: readonly UnsavedRecord[],
  saved: { has(predictionId: string): boolean },
): UnsavedRecord[] {
  return records.filter((record) => !saved.has(record.prediction_id));
}

/** What the outputs still unsaved were charged. */
export function unsavedCharges(records: readonly UnsavedRecord[], saved: ReadonlySet<string>): Micros {
  return stillUnsaved(records, saved).reduce((n, record) => n + (tryParseUsd(record.credits_used) ?? 0), 0);
}
