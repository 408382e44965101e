/**
 * The Plan: what a campaign spec expands to, and the contract between the planner (`plan/`) and
 * the engine (`workflows/`, `activities/`). Plain JSON-safe data, so it can be written to disk and
 * read back page by page by activities; workflows never carry a whole plan through history.
 */
import { z } from 'zod';
import { ModelLabel } from '../api/catalogue/models.ts';
import { Operation } from '../derive/operations.ts';
import { NotifyRule } from './notify.ts';
import { RefusalRule } from './refusal.ts';
import { ReviewRule } from './review.ts';

/**
 * Written in an image field of a chained job's input; the engine substitutes the parent job's
 * output URL at run time. The job key covers the parent's key instead of the URL.
 */
export const FROM_OUTPUT = '{{from.output}}';

/**
 * Prefix of a local file reference in a resolved input: `mediaflow-file:///abs/path.png`.
 * The engine uploads the file (POST /v1/files) at run time and substitutes its URL. The job key
 * covers the file's sha256, so editing the picture regenerates the job.
 */
export const LOCAL_FILE_PREFIX = 'mediaflow-file://';

/**
 * Schemas, not interfaces: workers read plans back from disk (a shared folder anyone can write to),
 * so they parse them rather than trust a cast, and the types below are derived from the schemas so
 * the two can never disagree.
 */
/** What a derivative's file is: a still or a clip (a clip's `frame` makes a still). */
export const DerivativeOutput = z.enum(['image', 'video']);
export type DerivativeOutput = z.infer<typeof DerivativeOutput>;

/**
 * A file a derive step makes from one job's output (plan/derivatives.ts). Not a job of the engine:
 * a deliverable of its parent job, made by the worker once the parent's output is saved, so it
 * takes no service slot, costs nothing and adds no workflow history.
 */
export const PlannedDerivative = z
  .object({
    /** The derive step's id: its files go under that step's folder. */
    step: z.string(),
    /** Content hash of the parent's key, the operations (assets by sha256) and the tools' versions. */
    key: z.string().regex(/^[0-9a-f]{32}$/),
    /** The file under the derive step's folder, without extension: the parent's file, else its name. */
    file: z.string().min(1),
    /** Fully resolved for this parent: templates rendered, presets expanded, assets absolute and hashed. */
    operations: z.array(Operation).readonly(),
    output: DerivativeOutput,
  })
  .readonly();
export type PlannedDerivative = z.infer<typeof PlannedDerivative>;

export const PlannedJob = z
  .object({
    /** Content hash of model + resolved input + variant + parent key (+ local files' sha256). */
    key: z.string().regex(/^[0-9a-f]{32}$/),
    step: z.string(),
    /** Unique in the campaign, safe as a file name stem (no separators, no dots at the start). */
    name: z.string().regex(/^[^./\\][^/\\]*$/),
    model: ModelLabel,
    /**
     * The output's file under its step's folder, without extension, from output.name (checked
     * by plan/output-names.ts); absent: the job's name. A plan is a file anyone can edit, so the
     * store refuses a key that leads outside it whatever this holds.
     */
    file: z.string().min(1).optional(),
    /** Validated against the model's schema; may hold FROM_OUTPUT and LOCAL_FILE_PREFIX values. */
    input: z.record(z.string(), z.unknown()).readonly(),
    /** Key of the parent job (`from:` step), or null. */
    parent: z.string().nullable(),
    /** Local price (micro-dollars), or null when the catalogue does not know it (V5). */
    usd: z.number().int().nonnegative().nullable(),
    /** Matrix values and variant that produced this job, for messages and progress. */
    vars: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).readonly(),
    /** From 1 to the step's `repeat` (the `{{variant}}` of templates). */
    variant: z.number().int().positive(),
    /** sha256 of each local file named in `input`, by absolute path: checked again before upload. */
    files: z
      .record(z.string(), z.string().regex(/^[0-9a-f]{64}$/))
      .readonly()
      .optional(),
    /**
     * Set by `run` when it stores the plan, on jobs of a reviewed step that have descendants: they
     * are the indexes up to `end`, costing `belowUsd` (records/subtrees.ts). Stored with the
     * pages so a worker never needs the whole plan to know what a review gate holds back.
     */
    subtree: z
      .object({ end: z.number().int().nonnegative(), belowUsd: z.number().int().nonnegative() })
      .readonly()
      .optional(),
    /** Steps with `on_refusal: { fallback }` only: the price of this input on the fallback model. */
    fallbackUsd: z.number().int().nonnegative().optional(),
    /** Jobs of a step that derive steps follow only: the files made from this job's output. */
    derivatives: z.array(PlannedDerivative).readonly().optional(),
  })
  .readonly();
export type PlannedJob = z.infer<typeof PlannedJob>;

export const PlannedStep = z
  .object({
    id: z.string(),
    model: ModelLabel,
    from: z.string().nullable(),
    /** Regenerations allowed for a failed prediction. */
    retries: z.number().int().nonnegative(),
    /** Predictions of this step in flight at once, or null for the campaign's limit only. */
    concurrency: z.number().int().positive().nullable(),
    jobCount: z.number().int().nonnegative(),
    /** The step's review gate; absent or null: none (plans stored before review gates have none). */
    review: ReviewRule.nullable().optional(),
    /** What a content refusal does; absent: skip (plans stored before refusals have none). */
    onRefusal: RefusalRule.optional(),
    /** How long one prediction may take, ms; absent: no deadline. */
    timeoutMs: z.number().int().positive().optional(),
  })
  .readonly();
export type PlannedStep = z.infer<typeof PlannedStep>;

/** A derive step: not a model step, so `Plan.steps` (and every job count the engine keeps) leaves it out. */
export const PlannedDeriveStep = z
  .object({
    id: z.string(),
    from: z.string(),
    output: DerivativeOutput,
    /** One per job of its `from:` step. */
    derivativeCount: z.number().int().nonnegative(),
    /** Its review gate; absent: none (so plans without one, and their digests, stay as they were). */
    review: ReviewRule.optional(),
  })
  .readonly();
export type PlannedDeriveStep = z.infer<typeof PlannedDeriveStep>;

export const Plan = z
  .object({
    campaign: z.string(),
    /** Absolute path of the spec file. */
    specFile: z.string(),
    /** Absolute output folder. */
    outputDir: z.string(),
    /** `budget.max_usd`: what the campaign may spend in all its runs together; null without one. */
    budget: z.number().int().nonnegative().nullable(),
    /** `budget.per_run_usd`: what one run may spend; absent without one, so other plans stay as they were. */
    perRunBudget: z.number().int().nonnegative().optional(),
    concurrency: z.number().int().positive(),
    /** The model steps: derive steps are in `deriveSteps`. */
    steps: z.array(PlannedStep).readonly(),
    /** Absent without derive steps, so other plans stay as they were. */
    deriveSteps: z.array(PlannedDeriveStep).readonly().optional(),
    /** The model jobs, parents always before their children; derivatives ride on their parents. */
    jobs: z.array(PlannedJob).readonly(),
    /** Sum of the known local prices. */
    totalUsd: z.number().int().nonnegative(),
    /** Jobs whose price only the service knows (V5). */
    unpricedJobs: z.number().int().nonnegative(),
    /** Where notices go (plan/notify.ts); absent without `notify:`, so other plans stay as they were. */
    notify: NotifyRule.optional(),
    /** Weight in the key's shares (spec `weight:`, `run --weight`); absent: 1. */
    weight: z.number().positive().optional(),
    /** Served first by the key's governor and caps (spec `priority:`); absent: 0. */
    priority: z.number().int().optional(),
  })
  .readonly();
export type Plan = z.infer<typeof Plan>;
