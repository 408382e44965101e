/**
 * Prepared steps → jobs. Each job's input is rendered from its templates, local pictures are
 * checked and hashed, the result is validated by the model's own schema, keyed and priced.
 * Jobs come parents-first and depth-first (each parent job immediately followed by its
 * descendants) so the engine can start a video as soon as its picture is done. A step with
 * `for_each` makes its jobs per row of its table, and its descendants read the same row. A job
 * of a step that derive steps follow carries their derivatives (plan/derivatives.ts). A problem repeated across thousands of combinations is reported once, naming the first one.
 */
import { checkModelInput, MODELS } from '../api/catalogue/index.ts';
import { derivativeOf } from './derivatives.ts';
import { cellOf, isRowName, rowProblem } from './for-each.ts';
import type { InputField } from './input-fields.ts';
import { jobKey } from './keys.ts';
import { isLocalPath, type LocalFiles } from './local-files.ts';
import type { Combination } from './matrix.ts';
import { JobNames, nameParts, slug } from './names.ts';
import { OutputNames } from './output-names.ts';
import type { PreparedStep } from './prepare.ts';
import type { SpecProblem } from './problems.ts';
import { fallbackProblem } from './refusal-check.ts';
import type { Report } from './report.ts';
import type { Scalar } from './schema.ts';
import { describePath } from './shape-problems.ts';
import type { DataPath } from './source.ts';
import { didYouMean } from './suggest.ts';
import type { Row } from './tables.ts';
import { renderTemplate } from './templates.ts';
import { FROM_OUTPUT, LOCAL_FILE_PREFIX, type PlannedJob } from './types.ts';

interface Parent {
  readonly key: string;
  readonly vars: Readonly<Record<string, Scalar>>;
  readonly parts: readonly string[];
  readonly row: Row | null;
}

interface Repeated {
  path: DataPath;
  message: string;
  text?: string;
  count: number;
}

export function expandJobs(
  roots: readonly PreparedStep[],
  vars: Readonly<Record<string, Scalar>>,
  files: LocalFiles,
  report: Report,
  reportInTable: (problem: SpecProblem) => void = () => {},
): PlannedJob[] {
  const jobs: PlannedJob[] = [];
  const names = new JobNames();
  const outputNames = new OutputNames();
  const keys = new Map<string, { name: string; row: Row | null }>();
  /** Jobs identical to an earlier one (reported): their descendants are too, and are not reported again. */
  const twins = new Set<string>();
  const repeated = new Map<string, Repeated>();

  /** `where` is given when the problem depends on matrix values: the message names the first combination. */
  const problem = (
    step: PreparedStep,
    path: DataPath,
    message: string,
    where: (() => string) | null,
    text?: string,
  ) => {
    const id = `${step.index}\u0000${path.join('.')}\u0000${message}`;
    const seen = repeated.get(id);
    if (seen) seen.count++;
    else
      repeated.set(id, {
        path,
        message: `${where ? where() : `step "${step.id}"`}: ${message}`,
        text,
        count: 1,
      });
  };

  const emit = (step: PreparedStep, parent: Parent | null) => {
    const rows = step.rows.kind === 'rows' && step.rows.own ? step.rows.table.rows : [parent?.row ?? null];
    for (const row of rows) {
      for (const combination of step.combinations) {
        for (let variant = 1; variant <= step.repeat; variant++) {
          const job = buildJob(step, parent, row, combination, variant);
          jobs.push(job.planned);
          for (const child of step.children) if (child.jobCount > 0) emit(child, job.self);
        }
      }
    }
  };

  const buildJob = (
    step: PreparedStep,
    parent: Parent | null,
    row: Row | null,
    combination: Combination,
    variant: number,
  ) => {
    // A row's name comes first, so a contact sheet lays its jobs out a row of the table per line.
    const ownRow = step.rows.kind === 'rows' && step.rows.own ? row : null;
    const jobVars: Record<string, Scalar> = {
      ...parent?.vars,
      ...(ownRow && { row: ownRow.name }),
      ...combination,
    };
    const cell = (name: string, path: DataPath) => {
      const found = row && cellOf(row, name);
      // An unknown column was reported where the template names it.
      if (!found || step.rows.kind !== 'rows' || !step.rows.table.columns.includes(found.column))
        return undefined;
      if (found.value === '' && !step.rows.table.optional.includes(found.column)) {
        reportInTable(
          rowProblem(
            step.rows.table,
            row,
            `empty "${found.column}" cell, which step "${step.id}" reads (${describePath(path)}); fill it in, or list the column under the table's optional:`,
          ),
        );
      }
      // Kept with the job, so plan and review can group its jobs by the cells they read.
      jobVars[name] = found.value;
      return found.value;
    };
    // Own keys only: `{{constructor}}` must not find what every object inherits.
    const lookupAt = (path: DataPath) => (name: string) =>
      name === 'variant'
        ? variant
        : isRowName(name)
          ? cell(name, path)
          : Object.hasOwn(jobVars, name)
            ? jobVars[name]
            : Object.hasOwn(vars, name)
              ? vars[name]
              : undefined;
    const where = () => describeCombination(step, jobVars, variant, row);
    const input: Record<string, unknown> = {};
    const hashes: Record<string, string> = {};
    const sources = new Map<string, InputField>();
    for (const field of step.fields) {
      sources.set(field.name, field);
      let value: unknown = field.value;
      if (field.template) {
        const rendered = renderTemplate(field.template, lookupAt(field.path));
        for (const name of rendered.missing ?? []) {
          // Names unknown in every combination were reported once by prepare.ts.
          if (step.knownNames.has(name)) {
            problem(step, field.path, `{{${name}}} has no value in this combination`, where, `{{${name}`);
          }
        }
        value = rendered.value;
      } else if (typeof value === 'number') {
        value = String(value);
      }
      if (field.isImage && typeof value === 'string' && value !== FROM_OUTPUT && isLocalPath(value)) {
        const file = files.resolve(value);
        const fromCell = field.template?.whole && isRowName(field.template.names[0]!);
        if (file.ok) {
          hashes[file.path] = file.sha256;
          value = LOCAL_FILE_PREFIX + file.path;
        } else if (fromCell && row && step.rows.kind === 'rows') {
          reportInTable(rowProblem(step.rows.table, row, `${file.message} (read by step "${step.id}")`));
        } else problem(step, field.path, file.message, field.template ? where : null);
      }
      input[field.name] = value;
    }
    const checked = step.sound ? checkModelInput(step.model, input) : { ok: true as const };
    if (!checked.ok) {
      for (const issue of checked.problems) {
        const field = sources.get(String(issue.path[0]));
        const value = field ? input[field.name] : undefined;
        const hint = issue.allowed && typeof value === 'string' ? didYouMean(value, issue.allowed) : '';
        const path = field?.path ?? ['steps', step.index, 'input'];
        problem(step, path, `${issue.message}${hint}`, field?.template ? where : null);
      }
    }
    const fallback = step.onRefusal?.kind === 'fallback' ? step.onRefusal.model : null;
    if (fallback !== null && step.sound && checked.ok) {
      const unsuited = fallbackProblem(fallback, input);
      if (unsuited) problem(step, ['steps', step.index, 'on_refusal', 'fallback'], unsuited, where);
    }
    const key = jobKey({ model: step.model, input, variant, parent: parent?.key ?? null, files: hashes });
    const twin = keys.get(key);
    const parts = nameParts(
      parent?.parts ?? [],
      [...(ownRow ? [rowLabel(ownRow)] : []), ...Object.values(combination)],
      step.repeat > 1 ? variant : null,
    );
    const name = names.claim(step.id, parts, key);
    const parentTwin = parent !== null && twins.has(parent.key);
    if (twin !== undefined) twins.add(key);
    if (twin !== undefined && step.sound && !parentTwin) {
      if (ownRow && twin.row && twin.row !== ownRow && step.rows.kind === 'rows') {
        reportInTable(
          rowProblem(
            step.rows.table,
            ownRow,
            `makes the same job of step "${step.id}" as row ${twin.row.number} (the cells it reads are equal), so it would be paid twice; remove the row, or read a column that tells them apart`,
          ),
        );
      } else {
        const pair = () => `step "${step.id}" makes identical jobs "${twin.name}" and "${name}"`;
        const advice =
          'same model, input and variant, so one would be paid for twice; use every matrix key in the input, or "repeat" for variants';
        problem(step, ['steps', step.index, 'matrix'], advice, pair);
      }
    } else if (twin === undefined) keys.set(key, { name, row });
    const file = step.outputName
      ? outputNames.render(
          step,
          step.outputName,
          lookupAt(step.outputName.path),
          name,
          (path, message, where) => problem(step, path, message, where ?? null),
        )
      : undefined;
    const derivatives = step.derives.map((derive) =>
      derivativeOf(derive, { key, file: file ?? name, lookupAt }, (path, message, text) =>
        problem(step, path, message, where, text),
      ),
    );
    const planned: PlannedJob = {
      key,
      step: step.id,
      name,
      ...(file === undefined ? {} : { file }),
      model: step.model,
      input,
      parent: parent?.key ?? null,
      usd: MODELS[step.model].price(input),
      vars: jobVars,
      variant,
      // Workers hash each local file again before uploading it: an edit after planning must not
      // go out under this job's key.
      ...(Object.keys(hashes).length > 0 ? { files: hashes } : {}),
      ...(fallback === null ? {} : { fallbackUsd: MODELS[fallback].price(input) ?? 0 }),
      ...(derivatives.length > 0 ? { derivatives } : {}),
    };
    return { planned, self: { key, vars: jobVars, parts, row } };
  };

  for (const root of roots) if (root.jobCount > 0) emit(root, null);
  for (const { path, message, text, count } of repeated.values()) {
    const more = count > 1 ? ` (and ${count - 1} more ${count === 2 ? 'job' : 'jobs'} like it)` : '';
    report(path, `${message}${more}`, text === undefined ? {} : { text });
  }
  return jobs;
}

/** The part of a job's name its row gives: its id/sku cell made safe, else its number. */
function rowLabel(row: Row): string {
  return slug(row.name) || `row${row.number}`;
}

/** `step "teaser" with row 3 (a1), product=watch, mode=pro, variant 2`, for messages about one job. */
function describeCombination(
  step: PreparedStep,
  vars: Readonly<Record<string, Scalar>>,
  variant: number,
  row: Row | null,
): string {
  const values = Object.entries(vars)
    .filter(([key]) => key !== 'row' && !isRowName(key))
    .map(([key, value]) => `${key}=${value}`);
  if (row) values.unshift(`row ${row.number} (${row.name})`);
  if (step.repeat > 1) values.push(`variant ${variant}`);
  return values.length ? `step "${step.id}" with ${values.join(', ')}` : `step "${step.id}"`;
}
