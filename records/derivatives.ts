/**
 * What each derivative is, as made on the worker (activities/derive/): one record per derivative
 * key, `.mediaflow/derivatives/<key>.json`, replaced when it is made again (its parent re-taken,
 * a newer tool). A made derivative is kept while its record names the same key, the same parent
 * bytes and the same tools, and its file is there as recorded: that is what makes an unchanged
 * re-run derive nothing. A failed one is recorded with the reason, so `status`, the report and
 * `export` can say which files are missing and why, and the next run tries it again.
 */
import { z } from 'zod';
import { DERIVATIVES, derivativeKey, type Store } from '../store/index.ts';
import { parseJson } from './jsonl.ts';

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

const Parent = z.object({
  /** The job whose output it was made from. */
  key: z.string(),
  prediction_id: z.string().nullable(),
  file: z.string(),
  sha256: Sha256,
});

const Made = z.object({
  state: z.literal('made'),
  file: z.string(),
  sha256: Sha256,
  bytes: z.number().int().nonnegative(),
  format: z.string(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  /** Seconds, for a clip; null for a still. */
  duration_s: z.number().nonnegative().nullable(),
  /** The `.xmp` beside a file whose XMP could not be embedded. */
  xmp: z.string().optional(),
  c2pa: z.literal(true).optional(),
});

const Failed = z.object({
  state: z.literal('failed'),
  /** `derive_failed: <operation and reason>`. */
  message: z.string(),
});

export const DerivativeRecord = z.intersection(
  z.object({
    key: z.string().regex(/^[0-9a-f]{32}$/),
    step: z.string(),
    parent: Parent,
    /** What was done, in order, in words (derive/describe.ts). */
    operations: z.array(z.string()),
    /** The tools and versions that made it (sharp and libvips, ffmpeg). */
    tools: z.string(),
    at: z.string(),
  }),
  z.discriminatedUnion('state', [Made, Failed]),
);
export type DerivativeRecord = z.infer<typeof DerivativeRecord>;
export type MadeDerivative = Extract<DerivativeRecord, { state: 'made' }>;

export async function writeDerivative(store: Store, record: DerivativeRecord): Promise<void> {
  const parsed = DerivativeRecord.parse(record);
  await store.put(derivativeKey(parsed.key), `${JSON.stringify(parsed)}\n`);
}

/** The record of a derivative key, or null when there is none (or it cannot be read: made again). */
export async function readDerivative(store: Store, key: string): Promise<DerivativeRecord | null> {
  const text = await store.read(derivativeKey(key));
  if (text === undefined) return null;
  const parsed = DerivativeRecord.safeParse(parseJson(text));
  return parsed.success ? parsed.data : null;
}

/** The recorded derivative when it still stands for this parent and these tools, its file in place; else null. */
export async function standingDerivative(
  store: Store,
  record: DerivativeRecord | null,
  parentSha256: string,
  tools: string,
): Promise<MadeDerivative | null> {
  if (record === null || record.state !== 'made') return null;
  if (record.parent.sha256 !== parentSha256 || record.tools !== tools) return null;
  return (await store.stat(record.file))?.bytes === record.bytes ? record : null;
}

/** Every derivative record of an output location (`verify`, `export`, the run's summary). */
export async function readDerivatives(store: Store): Promise<DerivativeRecord[]> {
  const keys: string[] = [];
  for await (const key of store.list(DERIVATIVES)) if (key.endsWith('.json')) keys.push(key);
  const texts = await store.readAll(keys);
  return texts.flatMap((text) => {
    const parsed = text === undefined ? null : DerivativeRecord.safeParse(parseJson(text));
    return parsed?.success ? [parsed.data] : [];
  });
}
