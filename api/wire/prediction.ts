/**
 * The prediction record on the wire (service-spec.md part 2.2) and the one normalised shape that
 * the rest of mediaflow sees. The service shows two forms:
 *  - the create/get record: `id` (integer), `output_data.urls`, `credits_used` (decimal string)…
 *  - the "general success" form: `job_id` (string), `status`, `output` (array).
 * Both parse, extra fields are kept out of the way, and unknown statuses do not break parsing.
 */
import { z } from 'zod';
import { tryParseUsd } from '../money.ts';

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

/** What both record forms share once read: the status normalised, the charge exact. */
function common(record: {
  status: string;
  credits_used?: string | number | null | undefined;
  error?: z.infer<typeof PredictionError> | null | undefined;
}) {
  return {
    status: normaliseStatus(record.status),
    /** The status string exactly as the service sent it. */
    rawStatus: record.status,
    /** Exact amount charged, or null when the record does not say. */
    creditsUsed: tryParseUsd(record.credits_used),
    error: record.error ?? undefined,
  };
}

/**
 * A prediction as the rest of mediaflow sees it, whichever form it came in: the type both forms
 * are read into (the emulator and tests build it too).
 */
const PredictionShape = z.object({
  /** Always a string: the integer `id` of the record form, or the `job_id` of the job form. */
  id: z.string(),
  status: z.enum([...PREDICTION_STATUSES, 'unknown']),
  rawStatus: z.string(),
  outputs: z.array(z.string()),
  creditsUsed: z.number().int().nullable(),
  error: PredictionError.optional(),
  // Only the record form says these.
  model: z.string().optional(),
  modelVersion: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Prediction = z.output<typeof PredictionShape>;

/**
 * Either record form (part 2.2), read into one shape. The job form is tried first: a loose record
 * schema would also accept it.
 */
export const Prediction = z
  .union([
    JobRecord.transform((job): Prediction => ({ id: job.job_id, outputs: job.output ?? [], ...common(job) })),
    PredictionRecord.transform(
      (full): Prediction => ({
        id: String(full.id),
        outputs: full.output_data?.urls ?? [],
        ...common(full),
        model: full.model,
        modelVersion: full.model_version,
        createdAt: full.created_at,
        updatedAt: full.updated_at,
      }),
    ),
  ])
  .pipe(PredictionShape);

/** Parses either record form into a Prediction. Throws a ZodError when it is neither. */
export function parsePrediction(body: unknown): Prediction {
  return Prediction.parse(body);
}

/** Create-prediction request body (part 2.1). */
export const CreatePredictionBody = z.object({
  input: z.record(z.string(), z.unknown()),
  image_count: z.literal(1),
});
export type CreatePredictionBody = z.infer<typeof CreatePredictionBody>;
