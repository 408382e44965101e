/**
 * The derivatives of one job's output (a derive step's crops, captions and cuts), made on the
 * worker right after the output is saved, or when a re-run finds them missing: locally, no service
 * call, no money. Each is kept while its record stands (records/derivatives.ts), so an unchanged
 * re-run derives nothing and a re-taken parent gets new ones. Each file goes into the store whole
 * (written beside, then renamed), with its provenance: XMP that calls it a composite of the
 * model's output and names the operations, and, with a signing key, a C2PA manifest whose parent
 * ingredient is the output it was made from.
 *
 * A derivative that cannot be made from these inputs (a DeriveError) is recorded `failed` with its
 * reason and never retried in a loop; anything else (the store, the disk) fails the attempt, which
 * Temporal retries within its policy, and finds what was already made kept.
 */
import { Readable } from 'node:stream';
import { DeriveError } from '../../derive/derive-error.ts';
import { c2paActionOf, describeOperation } from '../../derive/describe.ts';
import type { PlannedJob } from '../../plan/types.ts';
import {
  type DerivativeRecord,
  readDerivative,
  standingDerivative,
  writeDerivative,
} from '../../records/derivatives.ts';
import type { ManifestEntry } from '../../records/manifest.ts';
import type { Store } from '../../store/index.ts';
import { credentialsOf } from '../provenance/credentials/of-output.ts';
import { whole } from '../provenance/credentials/whole.ts';
import { provenanceOfEntry } from '../provenance/of-entry.ts';
import { withProvenance } from '../provenance/with-provenance.ts';
import type { Provenance } from '../provenance/xmp.ts';
import type { DeriveDeps } from './deps.ts';
import { parentInHand } from './parent-in-hand.ts';
import { produce } from './produce.ts';

type PlannedDerivative = NonNullable<PlannedJob['derivatives']>[number];

/** What a derivative's provenance names that the parent's record may not hold (records older than provenance). */
export interface DeriveContext {
  readonly campaign: string;
  readonly planDigest: string;
}

export interface Derived {
  readonly record: DerivativeRecord;
  /** Made (or failed) by this call, rather than found standing. */
  readonly now: boolean;
}

export async function makeDerivatives(
  deps: DeriveDeps,
  store: Store,
  job: PlannedJob,
  parent: ManifestEntry,
  context: DeriveContext,
): Promise<Derived[]> {
  const planned = job.derivatives ?? [];
  if (planned.length === 0) return [];
  const inHand = parentInHand(deps.parents, async () => {
    const body = await store.open(parent.file);
    if (!body) throw new Error(`the output ${parent.file} is gone from ${store.location}`);
    return whole(body);
  });
  try {
    return await Promise.all(
      planned.map((derivative) => makeOne(deps, store, derivative, parent, inHand.bytes, context)),
    );
  } finally {
    inHand.release();
  }
}

async function makeOne(
  deps: DeriveDeps,
  store: Store,
  derivative: PlannedDerivative,
  parent: ManifestEntry,
  parentBytes: () => Promise<Buffer>,
  context: DeriveContext,
): Promise<Derived> {
  const video = /\.(mp4|webm|mov)$/i.test(parent.file);
  const recorded = await readDerivative(store, derivative.key);
  const base = {
    key: derivative.key,
    step: derivative.step,
    parent: {
      key: parent.key,
      prediction_id: parent.prediction_id,
      file: parent.file,
      sha256: parent.sha256,
    },
    operations: derivative.operations.map(describeOperation),
    at: new Date().toISOString(),
  };
  let tools: string;
  try {
    tools = await deps.tools(video ? 'video' : 'image');
  } catch (error) {
    const record = failed(base, 'unknown', error);
    await writeDerivative(store, record);
    return { record, now: true };
  }
  const standing = await standingDerivative(store, recorded, parent.sha256, tools);
  if (standing) return { record: standing, now: false };
  let record: DerivativeRecord;
  try {
    const from = await parentBytes();
    // The bound is on the cores: the writes and records around the cut wait on the disk or the
    // bucket, and a derivative waiting there must not keep another from the CPU.
    const made = await deps.limit(() => produce(deps, { bytes: from, video }, derivative.operations));
    const file = `${derivative.step}/${derivative.file}.${made.extension}`;
    const provenance = withProvenance(
      derivedProvenance(parent, derivative, base.operations, context),
      file,
      credentialsOf(store, parent.regenerations, parent.file, {
        relationship: 'parentOf',
        bytes: parentBytes,
      }),
    );
    const { sha256, bytes } = await store.write(
      file,
      Readable.from(provenance.transform(Readable.from([made.data]))),
    );
    const sidecar = await provenance.sidecar(store);
    if (recorded?.state === 'made' && recorded.file !== file) await store.remove(recorded.file);
    record = {
      ...base,
      tools,
      state: 'made',
      file,
      sha256,
      bytes,
      format: made.extension,
      width: made.width,
      height: made.height,
      duration_s: made.durationSeconds,
      ...(sidecar ? { xmp: sidecar.file } : {}),
      ...(provenance.signed() ? { c2pa: true as const } : {}),
    };
  } catch (error) {
    if (!(error instanceof DeriveError)) throw error;
    record = failed(base, tools, error);
  }
  await writeDerivative(store, record);
  return { record, now: true };
}

function failed(
  base: Omit<DerivativeRecord, 'state' | 'tools'>,
  tools: string,
  error: unknown,
): DerivativeRecord {
  const message = error instanceof Error ? error.message : String(error);
  return { ...base, tools, state: 'failed', message: `derive_failed: ${message}` };
}

/** The parent's provenance, as a derivative of it: the same generation, edited. */
function derivedProvenance(
  parent: ManifestEntry,
  derivative: PlannedDerivative,
  operations: readonly string[],
  context: DeriveContext,
): Provenance {
  const prompt = parent.input.prompt;
  const of = provenanceOfEntry(parent) ?? {
    model: parent.model,
    prompt: typeof prompt === 'string' ? prompt : null,
    campaign: context.campaign,
    planDigest: context.planDigest,
    jobKey: parent.key,
    predictionId: parent.prediction_id,
    parentFile: null,
    review: null,
    createdAt: parent.created_at,
  };
  return {
    ...of,
    parentFile: parent.file,
    createdAt: new Date().toISOString(),
    derived: {
      step: derivative.step,
      key: derivative.key,
      operations,
      actions: derivative.operations.map(c2paActionOf),
    },
  };
}
