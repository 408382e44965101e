/**
 * Checks that need the whole spec, done once per step before any job exists: step ids, chains
 * (unknown steps, cycles, models without an image input), matrix keys and job limits; the input
 * fields' checks are input-fields.ts's. It produces the prepared steps that expand.ts turns into jobs.
 */
import type { ModelLabel } from '../api/catalogue/index.ts';
import { checkChains, topologicalOrder } from './chains.ts';
import type { PreparedDerive } from './derivatives.ts';
import { checkRowNames, rowsPerParentJob, type StepRows, stepRows } from './for-each.ts';
import {
  checkDefaults,
  checkTemplates,
  type InputField,
  inputFields,
  withParentOutput,
} from './input-fields.ts';
import { combinationBound, type JobLimit, MACHINE_JOBS, specLimits } from './job-limit.ts';
import { type Combination, expandMatrix, matrixAxes, productSize } from './matrix.ts';
import { type OutputName, prepareOutputName } from './output-names.ts';
import type { RefusalRule } from './refusal.ts';
import { stepTimeoutMs } from './refusal.ts';
import { refusalRule } from './refusal-check.ts';
import type { Report } from './report.ts';
import {
  type CampaignSpec,
  IDENTIFIER,
  IDENTIFIER_RULE,
  isModelStep,
  type ModelStep,
  RESERVED_NAMES,
  type Step,
} from './schema.ts';
import type { DataPath } from './source.ts';
import { didYouMean, quoteList } from './suggest.ts';
import type { Table } from './tables.ts';
import { compileTemplate } from './templates.ts';

export interface PreparedStep {
  readonly index: number;
  readonly id: string;
  readonly model: ModelLabel;
  readonly from: PreparedStep | null;
  readonly children: PreparedStep[];
  /** Derive steps that follow it: each of its jobs carries their derivatives (plan/derive-steps.ts). */
  readonly derives: PreparedDerive[];
  readonly fields: readonly InputField[];
  readonly combinations: readonly Combination[];
  /** The table rows its jobs are made for (`for_each`, its own or its parent's). */
  readonly rows: StepRows;
  readonly repeat: number;
  readonly retries: number | undefined;
  readonly concurrency: number | undefined;
  /** `on_refusal:` (plan/refusal.ts); null: skip, the default. */
  readonly onRefusal: RefusalRule | null;
  /** `timeout:` in ms; null: none. */
  readonly timeoutMs: number | null;
  /** Matrix keys of this step (not its ancestors'). */
  readonly ownKeys: ReadonlySet<string>;
  /** Names a template may use in at least one combination of this step. */
  readonly knownNames: ReadonlySet<string>;
  /** The template of its files' names (its own output.name, else the campaign's), or null. */
  readonly outputName: OutputName | null;
  /**
   * No problem was found in the step itself. Its jobs are still built (its children need their
   * keys), but their inputs are not checked, since they would mostly repeat the step's problems.
   */
  readonly sound: boolean;
  /** Jobs this step expands to: parent jobs × combinations × repeat. */
  jobCount: number;
}

/** `ceiling`: the most jobs the spec's limits may allow (job-limit.ts, MACHINE_JOBS or `--max-jobs`). */
export function prepareSteps(
  spec: CampaignSpec,
  report: Report,
  tables: ReadonlyMap<string, Table> = new Map(),
  ceiling = MACHINE_JOBS,
): PreparedStep[] {
  const vars = spec.vars ?? {};
  checkVariableNames(Object.keys(vars), ['vars'], report);
  checkDefaults(spec, report);
  const byId = new Map<string, Step>();
  spec.steps.forEach((step, index) => {
    if (byId.has(step.id))
      report(['steps', index, 'id'], `step id "${step.id}" is used twice; step ids must be unique`);
    else byId.set(step.id, step);
  });
  const prepared = new Map<Step, PreparedStep>();
  const chainOk = checkChains(spec.steps, byId, report);
  const { cap, total } = specLimits(spec, ceiling, report);
  // Parents first, so a child sees its ancestors' matrix keys and job count. Derive steps are
  // prepared after their parents' jobs are known (plan/derive-steps.ts).
  for (const index of topologicalOrder(spec.steps, byId, chainOk)) {
    const step = spec.steps[index]!;
    if (!isModelStep(step)) continue;
    const parent = step.from === undefined ? null : (prepared.get(byId.get(step.from)!) ?? null);
    const ready = prepareStep(step, index, parent, spec, { cap, total, tables }, report);
    prepared.set(step, ready);
    parent?.children.push(ready);
  }
  const steps = spec.steps.flatMap((step) => prepared.get(step) ?? []);
  // Over the limit, no job is built: the steps already expanded would be most of the memory.
  if (total.exceeded) for (const step of steps) step.jobCount = 0;
  return steps;
}

function prepareStep(
  step: ModelStep,
  index: number,
  parent: PreparedStep | null,
  spec: CampaignSpec,
  { cap, total, tables }: { cap: number; total: JobLimit; tables: ReadonlyMap<string, Table> },
  reportAll: Report,
): PreparedStep {
  let found = 0;
  const report: Report = (...problem) => {
    found++;
    reportAll(...problem);
  };
  const at: DataPath = ['steps', index];
  const inherited = new Set(parent ? ancestorKeys(parent) : []);
  const repeat = step.repeat ?? 1;
  const rows = stepRows(step, at, parent?.rows ?? null, spec, tables, report);
  const rowCount = rowsPerParentJob(rows);
  const withinCap = checkMatrix(step, at, inherited, Object.keys(spec.vars ?? {}), cap, report);
  const parentJobs = parent?.jobCount ?? null;
  const admitted = withinCap
    ? total.admit({ id: step.id, parentJobs, combinations: combinationBound(step.matrix) * rowCount, repeat })
    : { ok: false as const };
  if (!admitted.ok && admitted.message) report([...at, 'id'], admitted.message);
  const combinations = admitted.ok ? expandMatrix(step.matrix) : [];
  const jobCount = (parent?.jobCount ?? 1) * combinations.length * rowCount * repeat;
  if (combinations.length * repeat > 0 && jobCount > cap) {
    report(
      [...at, 'id'],
      `step "${step.id}" expands to ${jobCount.toLocaleString('en')} jobs (${parent ? `${parent.jobCount.toLocaleString('en')} parent jobs × ` : ''}${rows.kind === 'rows' && rows.own ? `${rowCount} rows × ` : ''}${combinations.length.toLocaleString('en')} combinations × ${repeat} ${repeat === 1 ? 'variant' : 'variants'}), above the cap of ${cap.toLocaleString('en')} per step; raise limits.jobs_per_step if you mean it`,
    );
  }
  const fields = inputFields(step, index, spec, report);
  const templated = fields.flatMap(({ path, template }) => (template ? [{ path, template }] : []));
  const nameText = step.output?.name ?? spec.output?.name;
  const namePath: DataPath = step.output?.name ? [...at, 'output', 'name'] : ['output', 'name'];
  const outputTemplate =
    nameText === undefined ? [] : [{ path: namePath, template: compileTemplate(nameText) }];
  const names = new Set([
    ...Object.keys(spec.vars ?? {}),
    ...inherited,
    ...matrixKeys(step),
    'variant',
    ...checkRowNames(step, at, rows, [...templated, ...outputTemplate], templated, report),
  ]);
  checkTemplates(step, fields, names, report);
  const withOutput = withParentOutput(step, at, fields, report);
  const outputName = prepareOutputName(nameText, namePath, names, report);
  return {
    index,
    id: step.id,
    model: step.model,
    from: parent,
    children: [],
    derives: [],
    fields: withOutput,
    sound: found === 0,
    combinations,
    rows,
    ownKeys: matrixKeys(step),
    knownNames: names,
    outputName,
    repeat,
    retries: step.retries,
    concurrency: step.concurrency,
    onRefusal: refusalRule(step, at, report),
    timeoutMs: stepTimeoutMs(step.timeout),
    jobCount: total.add(jobCount > cap ? 0 : jobCount),
  };
}

/** Axes and the keys `include` adds: every name the matrix can give a value to. */
function matrixKeys(step: Step): Set<string> {
  return new Set([
    ...matrixAxes(step.matrix).map(([key]) => key),
    ...(step.matrix?.include ?? []).flatMap(Object.keys),
  ]);
}

function ancestorKeys(step: PreparedStep): string[] {
  return [...step.ownKeys, ...(step.from ? ancestorKeys(step.from) : [])];
}

function checkVariableNames(names: readonly string[], path: DataPath, report: Report): void {
  for (const name of names) {
    if (!IDENTIFIER.test(name))
      report(path, `"${name}" cannot be used in templates: it must be ${IDENTIFIER_RULE}`, { key: name });
    else if ((RESERVED_NAMES as readonly string[]).includes(name)) {
      report(path, `"${name}" is reserved (${quoteList(RESERVED_NAMES)}); choose another name`, {
        key: name,
      });
    }
  }
}

function checkMatrix(
  step: Step,
  at: DataPath,
  inherited: ReadonlySet<string>,
  vars: readonly string[],
  cap: number,
  report: Report,
): boolean {
  const path = [...at, 'matrix'];
  const axes = matrixAxes(step.matrix).map(([key]) => key);
  const keys = matrixKeys(step);
  checkVariableNames([...keys], path, report);
  for (const key of keys) {
    if (vars.includes(key))
      report(path, `matrix key "${key}" is also a var; rename one of them so {{${key}}} has one meaning`, {
        key,
      });
    if (inherited.has(key)) {
      report(
        path,
        `matrix key "${key}" is already a matrix key of a step this one follows (from: ${step.from}); its jobs inherit that value`,
        { key },
      );
    }
  }
  (step.matrix?.exclude ?? []).forEach((entry, entryIndex) => {
    for (const key of Object.keys(entry)) {
      if (!axes.includes(key)) {
        report(
          [...path, 'exclude', entryIndex],
          `exclude names "${key}", which is not a matrix axis${didYouMean(key, axes)}; axes: ${axes.join(', ') || 'none'}`,
          { key },
        );
      }
    }
  });
  const size = productSize(step.matrix);
  if (size > cap) {
    const sizes = matrixAxes(step.matrix).map(([, values]) => values.length);
    report(
      path,
      `matrix has ${sizes.join(' × ')} = ${size.toLocaleString('en')} combinations, above the cap of ${cap.toLocaleString('en')} per step; raise limits.jobs_per_step if you mean it`,
    );
    return false;
  }
  return true;
}
