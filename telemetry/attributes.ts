/**
 * The attribute names mediaflow's spans carry (docs/deployment.md, "Tracing"): OpenTelemetry's
 * GenAI semantic conventions for a model call, and mediaflow's own for the campaign around it.
 */
export const ATTR = {
  /** What the call does: `generate_content` for a create, `wait` for a prediction's event stream. */
  operation: 'gen_ai.operation.name',
  /** The model the service runs, as its path (`owner/name`). */
  model: 'gen_ai.request.model',
  /** The prediction's id. */
  responseId: 'gen_ai.response.id',
  campaign: 'mediaflow.campaign',
  jobKey: 'mediaflow.job.key',
  jobName: 'mediaflow.job.name',
  step: 'mediaflow.step',
  /** 0 for a job's first take; each regeneration adds one. */
  take: 'mediaflow.take',
  /** The catalogue's label for the model (`I1`, `V4`). */
  modelLabel: 'mediaflow.model',
  /** What it cost, in dollars (exact in the records; a float here, for dashboards). */
  costUsd: 'mediaflow.cost_usd',
  /** How it ended, by name: `ok`, `rate_limited`, `content_refused`, `service_unavailable`, … */
  outcome: 'mediaflow.outcome',
  /** The jobs a batch activity carries. */
  batchSize: 'mediaflow.batch.size',
  /** The prompt, only with MEDIAFLOW_TRACE_PROMPTS=1. */
  prompt: 'mediaflow.prompt',
} as const;

/** The outcome of a call that ended well. */
export const OK = 'ok';
