/**
 * A contact sheet: a step's items laid out by matrix axes, the rows by some axes and the columns
 * by others, the items of one cell side by side (ordered by the axes left over). Pure.
 */
import type { Item, StepView } from './model.ts';

export interface Layout {
  readonly rows: readonly string[];
  readonly cols: readonly string[];
}

export interface Sheet {
  /** Labels of each row and column: the values of the chosen axes, joined. */
  readonly rowLabels: readonly string[];
  readonly colLabels: readonly string[];
  /** cells[row][col]: the items there, in plan order. */
  readonly cells: readonly (readonly (readonly Item[])[])[];
}

/**
 * The layout a step gets unless the user chose: its first axis as rows, its second as columns,
 * so a two-axis matrix reads like the spec's grid (the rest, variants included, share a cell).
 */
export function defaultLayout(step: StepView): Layout {
  const [rows, cols] = step.axes;
  return { rows: rows === undefined ? [] : [rows], cols: cols === undefined ? [] : [cols] };
}

/** Keeps the axes the step has, each once, none on both sides; an empty choice stays empty. */
export function fitLayout(step: StepView, wanted: Layout): Layout {
  const has = (axis: string) => step.axes.includes(axis);
  const rows = [...new Set(wanted.rows.filter(has))];
  const cols = [...new Set(wanted.cols.filter((axis) => has(axis) && !rows.includes(axis)))];
  return { rows, cols };
}

const SEPARATOR = ' · ';

/** A variant reads as in job names (`v2`); a bare "2" under a column says nothing. */
function axisValue(item: Item, axis: string): string {
  const value = item.axes[axis];
  if (value === undefined) return '—';
  return axis === 'variant' ? `v${value}` : value;
}

function labelOf(item: Item, axes: readonly string[]): string {
  return axes.map((axis) => axisValue(item, axis)).join(SEPARATOR);
}

/** Distinct labels in the order items first show them (the plan's order, which is the spec's). */
function labelsOf(items: readonly Item[], axes: readonly string[]): string[] {
  return [...new Set(items.map((item) => labelOf(item, axes)))];
}

export function sheetOf(step: StepView, layout: Layout): Sheet {
  const rowLabels = labelsOf(step.items, layout.rows);
  const colLabels = labelsOf(step.items, layout.cols);
  const cells = rowLabels.map(() => colLabels.map((): Item[] => []));
  for (const item of step.items) {
    const row = rowLabels.indexOf(labelOf(item, layout.rows));
    const col = colLabels.indexOf(labelOf(item, layout.cols));
    cells[row]![col]!.push(item);
  }
  return { rowLabels, colLabels, cells };
}
