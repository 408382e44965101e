/**
 * `for_each: <table>`: a step makes one job per row of a table under `data:` (times its matrix
 * and repeat), and its templates, and those of the steps that follow it, read the row's cells as
 * `{{row.<column>}}`. Checked here once per step, before any job exists: the table is declared,
 * each column a template names is in it, and the step reads at least one cell (else every row
 * would make the same job, paid once per row). What depends on a row's cells (empty, duplicate,
 * a picture that is not there) is found while the jobs are built and reported in the table.
 */
import path from 'node:path';
import type { SpecProblem } from './problems.ts';
import type { Report } from './report.ts';
import type { CampaignSpec, Step } from './schema.ts';
import type { DataPath } from './source.ts';
import { didYouMean } from './suggest.ts';
import { describeTable, type Row, type Table } from './tables.ts';
import { ROW_NAME, type Template } from './templates.ts';

/** The rows a step's jobs are made for. */
export type StepRows =
  | { readonly kind: 'none' }
  /** `own`: this step's `for_each`; else the rows of the step it follows, one per parent job. */
  | { readonly kind: 'rows'; readonly table: Table; readonly own: boolean }
  /** A table that could not be read (reported in it): the step makes no jobs. */
  | { readonly kind: 'broken' };

export interface NamedTemplate {
  readonly path: DataPath;
  readonly template: Template;
}

const NONE: StepRows = { kind: 'none' };

export function stepRows(
  step: Step,
  at: DataPath,
  parentRows: StepRows | null,
  spec: CampaignSpec,
  tables: ReadonlyMap<string, Table>,
  report: Report,
): StepRows {
  const inherited = parentRows?.kind === 'rows' ? { ...parentRows, own: false } : (parentRows ?? NONE);
  if (step.for_each === undefined) return inherited;
  const where = [...at, 'for_each'];
  if (inherited.kind === 'rows') {
    report(
      where,
      `step "${step.id}" follows "${step.from}", whose jobs are made per row of "${inherited.table.name}": each of its jobs already reads its parent's row; remove for_each`,
    );
    return inherited;
  }
  const declared = Object.keys(spec.data ?? {});
  if (!declared.includes(step.for_each)) {
    report(
      where,
      declared.length === 0
        ? `for_each: "${step.for_each}" names no table: declare it under data: (data: { ${step.for_each}: products.csv })`
        : `for_each: "${step.for_each}" is not a table${didYouMean(step.for_each, declared)}; tables: ${declared.join(', ')}`,
    );
    return { kind: 'broken' };
  }
  const table = tables.get(step.for_each);
  return table ? { kind: 'rows', table, own: true } : { kind: 'broken' };
}

/** Jobs a step makes per job of its parent (per campaign, for a first step) for each combination. */
export function rowsPerParentJob(rows: StepRows): number {
  if (rows.kind === 'broken') return 0;
  return rows.kind === 'rows' && rows.own ? rows.table.rows.length : 1;
}

/**
 * Reports each `{{row.x}}` that cannot have a value; returns the names templates may use
 * (`row.<column>` for every column of the step's table).
 */
export function checkRowNames(
  step: Step,
  at: DataPath,
  rows: StepRows,
  templates: readonly NamedTemplate[],
  fields: readonly NamedTemplate[],
  report: Report,
): Set<string> {
  const columns = rows.kind === 'rows' ? rows.table.columns : [];
  for (const { path: where, template } of templates) {
    for (const name of template.names) {
      const column = ROW_NAME.exec(name)?.[1];
      if (column === undefined || columns.includes(column) || rows.kind === 'broken') continue;
      report(
        where,
        rows.kind === 'rows'
          ? `no column "${column}" in ${describeTable(rows.table)}${didYouMean(column, columns)}`
          : `{{${name}}} reads a row, but step "${step.id}" makes no job per row: add for_each: <table> to it (or to a step it follows)`,
        { text: `{{${name}` },
      );
    }
  }
  if (rows.kind === 'rows' && rows.own && !fields.some(({ template }) => template.names.some(isRowName))) {
    report(
      [...at, 'for_each'],
      `step "${step.id}" makes a job per row of ${path.basename(rows.table.file)} but its input reads no cell ({{row.<column>}}): every row would make the same job, paid ${rows.table.rows.length} times`,
    );
  }
  return new Set(columns.map((column) => `row.${column}`));
}

export function isRowName(name: string): boolean {
  return ROW_NAME.test(name);
}

/** The row's cell a `{{row.<column>}}` names, or undefined for any other name. */
export function cellOf(
  row: Row,
  name: string,
): { column: string; value: string | number | boolean } | undefined {
  const column = ROW_NAME.exec(name)?.[1];
  if (column === undefined) return undefined;
  return { column, value: Object.hasOwn(row.values, column) ? row.values[column]! : '' };
}

/** A problem located at a row of its table. */
export function rowProblem(table: Table, row: Row, message: string): SpecProblem {
  return { file: table.file, line: row.line, message: `row ${row.number}: ${message}` };
}
