/**
 * The prediction record on the wire (service-spec.md part 2.2) and the one normalised shape that
 * the rest of mediaflow sees. The service shows two forms:
 *  - the create/get record: `id` (integer), `output_data.urls`, `credits_used` (decimal string)…
 *  - the "general success" form: `job_id` (string), `status`, `output` (array).
 * Both parse, extra fields are kept out of the way, and unknown statuses do not break parsing.
 */
import { z } from 'zod';
import { type Micros, tryParseUsd } from '../money.ts';

/** Statuses the emulator uses; the client accepts any string (see normaliseStatus). */
export const PREDICTION_STATUSES = ['processing', 'succeeded', 'failed', 'canceled'] as const;
export type KnownStatus = (typeof PREDICTION_STATUSES)[number];
/** `unknown` marks a status string we have never seen: treated as still running. */
export type PredictionStatus = KnownStatus | 'unknown';

export const TERMINAL_STATUSES: ReadonlySet<PredictionStatus> = new Set(['succeeded', 'failed', 'canceled']);

/** Failure detail of a failed prediction (not shown in the spec; the emulator's choice). */
export const PredictionError = z.looseObject({
  code: z.string().optional(),
  message: z.string(),
});

export const PredictionRecord = z.looseObject({
  id: z.union([z.number().int(), z.string()]),
  user_id: z.string().optional(),
  model: z.string().optional(),
  model_version: z.string().optional(),
  input_parameters: z.record(z.string(), z.unknown()).optional(),
  output_data: z.looseObject({ urls: z.array(z.string()).default([]) }).nullish(),
  status: z.string(),
  credits_used: z.union([z.string(), z.number()]).nullish(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  upstream_id: z.string().optional(),
  error: PredictionError.nullish(),
});
export type PredictionRecord = z.infer<typeof PredictionRecord>;

export const JobRecord = z.looseObject({
  job_id: z.string(),
  status: z.string(),
  output: z.array(z.string()).nullish(),
  credits_used: z.union([z.string(), z.number()]).nullish(),
  error: PredictionError.nullish(),
});
export type JobRecord = z.infer<typeof JobRecord>;

export interface Prediction {
  /** Always a string: the integer `id` of the record form, or the `job_id` of the job form. */
  readonly id: string;
  readonly status: PredictionStatus;
  /** The status string exactly as the service sent it. */
  readonly rawStatus: string;
  readonly outputs: readonly string[];
  /** Exact amount charged, or null when the record does not say. */
  readonly creditsUsed: Micros | null;
  readonly model?: string;
  readonly modelVersion?: string;
  readonly createdAt?: string;
  readonly updatedAt?: string;
  readonly error?: { readonly code?: string; readonly message: string };
}

const SYNONYMS: Record<string, KnownStatus> = {
  starting: 'processing',
  queued: 'processing',
  pending: 'processing',
  running: 'processing',
  in_progress: 'processing',
  completed: 'succeeded',
  complete: 'succeeded',
  success: 'succeeded',
  successful: 'succeeded',
  error: 'failed',
  errored: 'failed',
  cancelled: 'canceled',
};

export function normaliseStatus(status: string): PredictionStatus {
  const lower = status.toLowerCase();
  if ((PREDICTION_STATUSES as readonly string[]).includes(lower)) return lower as KnownStatus;
  return SYNONYMS[lower] ?? 'unknown';
}

export const AnyPredictionForm = z.union([PredictionRecord, JobRecord]);

/** Parses either record form into a Prediction. Throws a ZodError when it is neither. */
export function parsePrediction(body: unknown): Prediction {
  const job = JobRecord.safeParse(body);
  const record = job.success ? job.data : PredictionRecord.parse(body);
  const common = {
    status: normaliseStatus(record.status),
    rawStatus: record.status,
    creditsUsed: tryParseUsd(record.credits_used),
    ...(record.error ? { error: record.error } : {}),
  };
  if (job.success) return { id: job.data.job_id, outputs: job.data.output ?? [], ...common };
  const full = record as PredictionRecord;
  return {
    id: String(full.id),
    outputs: full.output_data?.urls ?? [],
    ...common,
    ...(full.model !== undefined ? { model: full.model } : {}),
    ...(full.model_version !== undefined ? { modelVersion: full.model_version } : {}),
    ...(full.created_at !== undefined ? { createdAt: full.created_at } : {}),
    ...(full.updated_at !== undefined ? { updatedAt: full.updated_at } : {}),
  };
}

/** Create-prediction request body (part 2.1). */
export const CreatePredictionBody = z.object({
  input: z.record(z.string(), z.unknown()),
  image_count: z.literal(1),
});
export type CreatePredictionBody = z.infer<typeof CreatePredictionBody>;
