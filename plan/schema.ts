/**
 * The campaign spec format, version 1. The TypeScript types are inferred from these schemas and
 * `specs/campaign.schema.json` is generated from them (`npm run schema`), so editors, the loader
 * and the docs cannot drift apart. Checks that need the whole spec (chains, templates, models'
 * inputs) come after this shape check, in chains.ts, prepare.ts and expand.ts.
 */
import { z } from 'zod';
import { MODEL_LABELS, ModelLabel } from '../api/catalogue/index.ts';
import { tryParseUsd } from '../api/money.ts';
import { DeriveList, Presets } from './derive-spec.ts';
import { NotifySpec } from './notify.ts';
import { OnRefusal } from './refusal.ts';
import { ReviewSpec, ReviewTimeout } from './review.ts';

/** Becomes part of Temporal workflow ids and folder names, so it is kept to a portable alphabet. */
export const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const SAFE_NAME_RULE =
  'a name of 1 to 64 letters, digits, "-" or "_" starting with a letter or digit (no "/", "." or spaces)';
/** What store/location.ts accepts as an S3 location (plan/ may not import it). */
const S3_URL = /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/([^/.][^/]*)?)*$/;

/** Variables and matrix keys, as written inside `{{ }}`. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const IDENTIFIER_RULE = 'a name of letters, digits and "_" not starting with a digit';
/** The default cap on jobs per step; `limits.jobs_per_step` changes it. */
export const DEFAULT_JOBS_PER_STEP = 100_000;
/** The default cap on the whole spec's jobs; `limits.jobs` changes it. */
export const DEFAULT_JOBS = 1_000_000;
export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_RETRIES = 2;
/** Names with a meaning of their own (`{{variant}}`, `{{from.output}}`, `{{row.<column>}}`): no var or matrix key takes them. */
export const RESERVED_NAMES = ['variant', 'from', 'row'] as const;

const SafeName = z.string().regex(SAFE_NAME, { error: `must be ${SAFE_NAME_RULE}` });

export const Scalar = z.union([z.string(), z.number(), z.boolean()], {
  error: 'must be a string, a number or true/false',
});
export type Scalar = z.infer<typeof Scalar>;

const Variables = z.record(z.string(), Scalar).meta({
  description: 'Values usable in templates as {{name}}.',
});

/** Parameters of a model, before templates are rendered: checked per model after expansion. */
export const StepInput = z.record(z.string(), Scalar).meta({
  id: 'StepInput',
  description:
    'Model parameters (see docs/spec-format.md). Strings may hold {{name}} templates; numbers become strings.',
});

/** A dollar amount: a number (40, 12.5) or a decimal string ("12.50"), at most 6 decimals. */
const AMOUNT_RULE = 'must be an amount in dollars above 0, a number like 40 or a string like "12.50"';
const Amount = z
  .union(
    [
      z
        .number()
        .positive({ error: AMOUNT_RULE })
        .refine((amount) => tryParseUsd(amount) !== null, { error: AMOUNT_RULE }),
      z.string().regex(/^\d+(\.\d{1,6})?$/, { error: AMOUNT_RULE }),
    ],
    { error: AMOUNT_RULE },
  )
  .meta({ description: 'Dollars: a number like 40 or a decimal string like "12.50".' });

const Combination = z.record(z.string(), Scalar);

export const Matrix = z
  .object({
    include: z.array(Combination).optional().meta({
      description: 'Adds keys to matching combinations, or adds new combinations (GitHub Actions semantics).',
    }),
    exclude: z.array(Combination).optional().meta({
      description: 'Drops every combination that matches all the keys of an entry.',
    }),
  })
  .catchall(z.array(Scalar).min(1, { error: 'must list at least one value' }))
  .meta({ description: 'Axes (key: list of values) whose cartesian product makes one job per combination.' });
export type Matrix = z.infer<typeof Matrix>;

const TablePath = z.string().min(1, { error: 'must be the path of a table file' });

/** A table under `data:`: its file, or its file and the columns whose cells may be empty. */
export const TableSpec = z.union([
  TablePath,
  z.strictObject({
    file: TablePath,
    optional: z.array(z.string()).optional().meta({
      description:
        'Columns whose cells may be empty (a template reads an empty cell as ""); any other cell a template reads must be filled.',
    }),
  }),
]);
export type TableSpec = z.infer<typeof TableSpec>;

const OutputNameTemplate = z.string().min(1).meta({
  description:
    'File name of each job’s output under its step’s folder, without extension, e.g. "{{product}}/{{colour}}-{{aspect_ratio}}": matrix keys, vars and {{variant}}; "/" makes folders. Checked for unsafe characters and collisions (docs/spec-format.md).',
});

export const Step = z
  .strictObject({
    id: SafeName.meta({ description: 'Unique step name; prefixes its jobs’ names.' }),
    description: z.string().optional(),
    model: ModelLabel.optional().meta({
      description: 'Catalogue label of the model (required, unless the step has derive:).',
    }),
    derive: DeriveList.optional(),
    input: StepInput.optional(),
    matrix: Matrix.optional(),
    repeat: z
      .int()
      .min(1)
      .max(1000)
      .optional()
      .meta({ description: 'Variants of each combination (default 1).' }),
    from: z.string().optional().meta({
      description:
        'Step whose jobs feed this one: one job per parent job (times this matrix); for a derive step, one file per parent job.',
    }),
    for_each: z.string().optional().meta({
      description:
        'A table under `data:`: one job per row (times this matrix and repeat); templates read its cells as {{row.<column>}}, in this step and the steps that follow it.',
    }),
    retries: z
      .int()
      .min(0)
      .max(10)
      .optional()
      .meta({ description: `Regenerations of a failed prediction (default ${DEFAULT_RETRIES}).` }),
    concurrency: z.int().min(1).max(10_000).optional().meta({
      description: 'Predictions of this step in flight at once (default: the campaign limit only).',
    }),
    review: ReviewSpec.optional(),
    on_refusal: OnRefusal.optional(),
    timeout: ReviewTimeout.optional().meta({
      description:
        'How long one prediction may take ("90s", "10m"): past it the prediction is canceled upstream and the job ends timed_out (retried per `retries`, then its descendants are skipped).',
    }),
    output: z
      .strictObject({ name: OutputNameTemplate.optional() })
      .optional()
      .meta({ description: 'How this step names its files; overrides the campaign’s output.name.' }),
  })
  // Said as a missing required field would be: a step without derive: is a model step.
  .superRefine((step, context) => {
    if (step.model === undefined && step.derive === undefined)
      context.addIssue({
        code: 'invalid_value',
        values: [...MODEL_LABELS],
        path: ['model'],
        input: undefined,
      });
  })
  .meta({
    description:
      'One model applied to every combination of its matrix, or (derive:) files made from the outputs of its from: step.',
  });
export type Step = z.infer<typeof Step>;
/** A step with a model (the spec's shape gives one to every step without derive:). */
export type ModelStep = Step & { readonly model: ModelLabel; readonly derive?: undefined };
/** A step that makes files from its from: step's outputs (plan/derive-steps.ts). */
export type DeriveStep = Step & { readonly derive: DeriveList };

export function isModelStep(step: Step): step is ModelStep {
  return step.derive === undefined && step.model !== undefined;
}

export function isDeriveStep(step: Step): step is DeriveStep {
  return step.derive !== undefined;
}

/** `all` applies to every step whose model has the parameter; a label applies to that model only. */
const Defaults = z
  .strictObject(
    Object.fromEntries(['all', ...MODEL_LABELS].map((key) => [key, StepInput.optional()])) as Record<
      'all' | ModelLabel,
      z.ZodOptional<typeof StepInput>
    >,
  )
  .meta({
    description: 'Inputs merged under each step’s input: `all` for every model that has the parameter.',
  });

export const CampaignSpec = z
  .strictObject({
    version: z.literal(1, { error: 'must be 1 (the only version of the format)' }),
    campaign: SafeName.meta({ description: 'Campaign name: part of workflow ids and of the output folder.' }),
    description: z.string().optional(),
    budget: z
      .strictObject(
        {
          max_usd: Amount.optional().meta({
            description: 'What the campaign may spend in all its runs together (earlier runs’ spend counts).',
          }),
          per_run_usd: Amount.optional().meta({ description: 'What one run of the campaign may spend.' }),
        },
        {
          // `budget: 60` is the likeliest slip: say what to write instead.
          error: (issue) =>
            issue.code === 'invalid_type' && ['number', 'string'].includes(typeof issue.input)
              ? `must be a mapping such as { max_usd: ${JSON.stringify(issue.input)} }`
              : undefined,
        },
      )
      .refine((budget) => budget.max_usd !== undefined || budget.per_run_usd !== undefined, {
        error: 'must set max_usd (the campaign’s), per_run_usd (each run’s) or both',
      })
      .optional(),
    concurrency: z
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .meta({ description: `Predictions in flight for the campaign (default ${DEFAULT_CONCURRENCY}).` }),
    weight: z.number().positive().max(1000).optional().meta({
      description:
        'This campaign’s weight when campaigns share one API key (default 1): under contention, shares of the key’s rate and in-flight limit follow weights (`run --weight` overrides it).',
    }),
    priority: z.int().min(-100).max(100).optional().meta({
      description:
        'Campaigns of a higher priority on the same API key are served first, by their rate governor and by spend caps (default 0).',
    }),
    output: z
      .strictObject({
        dir: z
          .string()
          .min(1)
          .refine((dir) => !dir.startsWith('s3://') || S3_URL.test(dir), {
            message:
              'an S3 location is s3://<bucket>/<prefix>, the bucket 3 to 63 lower-case letters, digits, dots or hyphens',
          })
          .meta({
            description:
              'A folder, relative to the spec file, or s3://bucket/prefix for S3-compatible object storage (endpoint and credentials from the AWS SDK configuration). Default out/<campaign>.',
          })
          .optional(),
        name: OutputNameTemplate.optional(),
      })
      .optional(),
    vars: Variables.optional(),
    data: z
      .record(z.string().regex(IDENTIFIER, { error: `a table's name must be ${IDENTIFIER_RULE}` }), TableSpec)
      .optional()
      .meta({
        description:
          'Tables by name, each a file relative to the spec (or { file, optional: [columns that may be empty] }): CSV or TSV with a header row, JSON Lines (.jsonl), or a YAML/JSON list of objects. A step reads one with `for_each: <name>`.',
      }),
    defaults: Defaults.optional(),
    presets: Presets.optional(),
    limits: z
      .strictObject({
        jobs_per_step: z
          .int()
          .min(1)
          .max(10_000_000)
          .optional()
          .meta({
            description: `Largest number of jobs a step may expand to (default ${DEFAULT_JOBS_PER_STEP}).`,
          }),
        jobs: z
          .int()
          .min(1)
          .max(100_000_000)
          .optional()
          .meta({
            description: `Largest number of jobs the whole spec may expand to, all steps together (default ${DEFAULT_JOBS}).`,
          }),
      })
      .optional(),
    steps: z.array(Step).min(1, { error: 'must list at least one step' }),
    notify: NotifySpec.optional(),
  })
  .meta({ title: 'mediaflow campaign spec', description: 'One YAML file describing many generations.' });
export type CampaignSpec = z.infer<typeof CampaignSpec>;
