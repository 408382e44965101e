/**
 * The Plan: what a campaign spec expands to, and the contract between the planner (`plan/`) and
 * the engine (`workflows/`, `activities/`). Plain JSON-safe data, so it can be written to disk and
 * read back page by page by activities; workflows never carry a whole plan through history.
 */
import type { ModelLabel } from '../api/catalogue/index.ts';
import type { Micros } from '../api/money.ts';

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

export interface PlannedJob {
  /** Content hash of model + resolved input + variant + parent key (+ local files' sha256). */
  readonly key: string;
  readonly step: string;
  /** Unique in the campaign, safe as a file name stem (no separators, no dots at the start). */
  readonly name: string;
  readonly model: ModelLabel;
  /** Validated against the model's schema; may hold FROM_OUTPUT and LOCAL_FILE_PREFIX values. */
  readonly input: Readonly<Record<string, unknown>>;
  /** Key of the parent job (`from:` step), or null. */
  readonly parent: string | null;
  /** Local price, or null when the catalogue does not know it (V5). */
  readonly usd: Micros | null;
  /** Matrix values and variant that produced this job, for messages and progress. */
  readonly vars: Readonly<Record<string, string | number | boolean>>;
  /** From 1 to the step's `repeat` (the `{{variant}}` of templates). */
  readonly variant: number;
}

export interface PlannedStep {
  readonly id: string;
  readonly model: ModelLabel;
  readonly from: string | null;
  /** Regenerations allowed for a failed prediction. */
  readonly retries: number;
  /** Predictions of this step in flight at once, or null for the campaign's limit only. */
  readonly concurrency: number | null;
  readonly jobCount: number;
}

export interface Plan {
  readonly campaign: string;
  /** Absolute path of the spec file. */
  readonly specFile: string;
  /** Absolute output folder. */
  readonly outputDir: string;
  readonly budget: Micros | null;
  readonly concurrency: number;
  readonly steps: readonly PlannedStep[];
  /** Parents always come before their children. */
  readonly jobs: readonly PlannedJob[];
  /** Sum of the known local prices. */
  readonly totalUsd: Micros;
  /** Jobs whose price only the service knows (V5). */
  readonly unpricedJobs: number;
}
