/**
 * Content refusals as recorded beside the manifest: one create-once record per refused take,
 * `.mediaflow/refusals/<campaign>/<key>.<take>.json`, or per flagged prediction
 * `<key>.<take>.<prediction id>.json`, written by the activity that met it (a prompt
 * refused at create, an output flagged after processing). The workflow only counts refusals; the
 * report needs each one with its job, to show which matrix values the service keeps refusing
 * (review/refusal-rates.ts), and a re-run must not forget them: records outlive histories.
 */
import { z } from 'zod';
import { type Micros, tryParseUsd } from '../api/money.ts';
import { openStore, refusalsOf, type Store } from '../store/index.ts';
import { parseJson } from './jsonl.ts';
import { predictionTag } from './prediction-tag.ts';

export const RefusalRecord = z.object({
  /** The job's key (plan/keys.ts). */
  key: z.string().regex(/^[0-9a-f]{32}$/),
  /** The take (regeneration) refused. */
  take: z.number().int().nonnegative(),
  /** The model the take ran on: the step's, or its fallback. */
  model: z.string(),
  /** `prompt`: refused at create, nothing charged; `output`: flagged after processing, charged. */
  stage: z.enum(['prompt', 'output']),
  code: z.string(),
  message: z.string(),
  /** What the service charged for it, decimal string; "0" for a refused prompt. */
  credits_used: z.string(),
  /**
   * The flagged prediction (stage `output`). It names the record: one take can be flagged more
   * than once (a re-run creates it again), and each charge needs a record of its own (the full
   * field drill found three charged outputs whose records had been kept out by an earlier one).
   */
  prediction_id: z.string().optional(),
  at: z.string(),
});
export type RefusalRecord = z.infer<typeof RefusalRecord>;

/** Records each refusal once; a record already there (an earlier attempt's) is kept. */
export async function writeRefusals(
  store: Store,
  campaign: string,
  records: readonly RefusalRecord[],
): Promise<void> {
  for (const record of records) await writeRefusal(store, campaign, record);
}

/** Records one refusal; false when it was recorded already (an earlier attempt's, or run's). */
export async function writeRefusal(store: Store, campaign: string, record: RefusalRecord): Promise<boolean> {
  const parsed = RefusalRecord.parse(record);
  const tag = parsed.prediction_id === undefined ? '' : `.${predictionTag(parsed.prediction_id)}`;
  const written = await store.createOnce(
    `${refusalsOf(campaign)}${parsed.key}.${parsed.take}${tag}.json`,
    `${JSON.stringify(parsed)}\n`,
  );
  return written.created;
}

/** Every refusal of the campaign, by job key, in take order. */
export async function readRefusals(
  outputDir: string,
  campaign: string,
  store: Store = openStore(outputDir),
): Promise<Map<string, RefusalRecord[]>> {
  const byKey = new Map<string, RefusalRecord[]>();
  for await (const name of store.list(refusalsOf(campaign))) {
    if (!name.endsWith('.json')) continue;
    const text = await store.read(name);
    const parsed = text === undefined ? null : RefusalRecord.safeParse(parseJson(text));
    // A record someone else put there is not a refusal.
    if (!parsed?.success) continue;
    byKey.set(parsed.data.key, [...(byKey.get(parsed.data.key) ?? []), parsed.data]);
  }
  for (const records of byKey.values()) records.sort((a, b) => a.take - b.take);
  return byKey;
}

/**
 * What the refused takes were charged: flagged outputs are billed (a refused prompt is not), and
 * their money is in no manifest line, so a campaign's total adds it (records/manifest.ts).
 */
export function refusalCharges(refusals: Iterable<readonly RefusalRecord[]>): Micros {
  let charged = 0;
  for (const records of refusals)
    for (const record of records) charged += tryParseUsd(record.credits_used) ?? 0;
  return charged;
}
