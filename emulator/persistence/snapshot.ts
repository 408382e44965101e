/**
 * The emulator's state as one JSON document: what a restart must not lose (predictions with their
 * timing, credits, keys, the ledger, idempotency keys, upload metadata, webhooks). Faults, limits
 * and rate-limit buckets are settings or momentary, so they are not kept; webhook retries pending
 * at shutdown are dropped. Read back with zod: a damaged file must fail loudly at start, never
 * become half a state that charges a prediction twice.
 */
import { z } from 'zod';
import { ModelLabel } from '../../api/catalogue/index.ts';
import { PREDICTION_STATUSES } from '../../api/wire/index.ts';
import type { EmulatorContext } from '../context.ts';
import type { StoredPrediction } from '../predictions/prediction.ts';

const Micros = z.number().int();

const SavedPrediction = z.object({
  id: z.number().int().positive(),
  label: ModelLabel,
  owner: z.string(),
  modelSegment: z.string(),
  input: z.record(z.string(), z.unknown()),
  price: Micros,
  keyId: z.string(),
  idempotencyKey: z.string().optional(),
  /** False when the create ignored the key (drills): a later create with it is new. */
  keyRemembered: z.boolean(),
  fingerprint: z.string(),
  createdAt: z.string(),
  willFail: z.boolean(),
  /** Absent in states saved before content refusals. */
  willFlag: z.boolean().optional(),
  upstreamId: z.string().optional(),
  status: z.enum(PREDICTION_STATUSES),
  creditsUsed: Micros,
  updatedAt: z.string(),
  /** File names under the CDN's /outputs/: the origin is the new process's, whatever its port. */
  outputs: z.array(z.string().regex(/^\d{1,15}\.(png|mp4)$/)),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** Processing only: when it ends (epoch ms). Time goes on while the emulator is down. */
  dueAt: z.number().optional(),
});

const Count = z.number().int().nonnegative();

export const Snapshot = z.object({
  version: z.literal(1),
  savedAt: z.string(),
  account: z.object({
    balance: Micros,
    createdAt: z.string(),
    usage: z.array(z.object({ label: ModelLabel, predictions: Count, spent: Micros })),
  }),
  keys: z.object({
    nextSeq: z.number().int().positive(),
    keys: z.array(
      z.object({
        id: z.string(),
        seq: z.number().int(),
        name: z.string(),
        secret: z.string(),
        createdAt: z.string(),
      }),
    ),
  }),
  predictions: z.array(SavedPrediction),
  files: z.object({
    nextSeq: z.number().int().positive(),
    files: z.array(
      z.object({
        id: z.string(),
        seq: z.number().int(),
        filename: z.string(),
        contentType: z.string(),
        createdAt: z.string(),
      }),
    ),
  }),
  webhooks: z.object({
    lastSeq: Count,
    hooks: z.array(
      z.object({
        id: z.string(),
        seq: z.number().int(),
        url: z.string(),
        events: z.array(z.string()),
        secret: z.string(),
        createdAt: z.string(),
      }),
    ),
  }),
  ledger: z.object({
    predictionsCreated: Count,
    byModel: z.record(z.string(), Count),
    byIdempotencyKey: z.record(z.string(), Count),
    duplicates: Count,
    creditsCharged: z.string(),
    requests: z.record(z.string(), z.record(z.string(), Count)),
    rateLimited: Count,
    failedPredictions: Count,
    canceledPredictions: Count,
    refusedPrompts: Count.optional(),
    flaggedOutputs: Count.optional(),
  }),
});
export type Snapshot = z.infer<typeof Snapshot>;

export function captureSnapshot(context: EmulatorContext): Snapshot {
  const { predictions, lifecycle } = context;
  return {
    version: 1,
    savedAt: new Date().toISOString(),
    account: context.account.save(),
    keys: context.keys.save(),
    predictions: predictions.list().map((p) => {
      const dueAt = p.status === 'processing' ? lifecycle.dueAt(p.id) : undefined;
      return {
        id: p.id,
        label: p.label,
        owner: p.owner,
        modelSegment: p.modelSegment,
        input: { ...p.input },
        price: p.price,
        keyId: p.keyId,
        ...(p.idempotencyKey !== undefined ? { idempotencyKey: p.idempotencyKey } : {}),
        keyRemembered: predictions.remembersKeyOf(p),
        fingerprint: p.fingerprint,
        createdAt: p.createdAt,
        willFail: p.willFail,
        willFlag: p.willFlag,
        ...(p.upstreamId !== undefined ? { upstreamId: p.upstreamId } : {}),
        status: p.status,
        creditsUsed: p.creditsUsed,
        updatedAt: p.updatedAt,
        outputs: p.outputs.map((url) => url.slice(url.lastIndexOf('/') + 1)),
        ...(p.error ? { error: { ...p.error } } : {}),
        ...(dueAt !== undefined ? { dueAt } : {}),
      };
    }),
    files: context.files.save(),
    webhooks: context.webhooks.save(),
    ledger: context.ledger.snapshot(),
  };
}

/**
 * Loads a snapshot into a fresh context whose URLs are known (the server is listening). Processing
 * predictions hold their in-flight slots again and finish at their due time, at once if it passed
 * while the emulator was down.
 */
export function applySnapshot(context: EmulatorContext, snapshot: Snapshot): void {
  context.account.restore(snapshot.account);
  context.keys.restore(snapshot.keys, context.options.apiKey);
  context.files.restore(snapshot.files);
  context.webhooks.restore(snapshot.webhooks);
  context.ledger.restore(snapshot.ledger);
  const cdn = context.urls.cdnUrl;
  for (const { keyRemembered, dueAt, outputs, ...saved } of snapshot.predictions) {
    const prediction: StoredPrediction = {
      ...saved,
      idempotencyKey: saved.idempotencyKey,
      upstreamId: saved.upstreamId,
      error: saved.error,
      willFlag: saved.willFlag ?? false,
      outputs: outputs.map((name) => `${cdn}/outputs/${name}`),
    };
    if (prediction.id !== context.predictions.nextId()) {
      throw new Error(`state file: prediction ${prediction.id} is out of order (ids are 1, 2, 3…)`);
    }
    context.predictions.add(prediction, keyRemembered);
    if (prediction.status === 'processing') {
      context.limiter.holdInFlight(prediction.keyId);
      context.lifecycle.resume(prediction, dueAt ?? Date.now());
    }
  }
}
