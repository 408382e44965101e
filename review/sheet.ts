/**
 * A contact sheet: a step's items laid out by matrix axes, the rows by some axes and the columns
 * by others, the items of one cell side by side (ordered by the axes left over). Pure, and the
 * same for a model step's jobs and a derive step's files (channels.ts): a channel's files carry
 * their parent job's axes, so its sheet reads like its parent's.
 */

/** What a sheet lays out: anything with matrix values by axis name. */
export interface Placed {
  readonly axes: Readonly<Record<string, string>>;
}

/** A step as a sheet sees it: its axes in the spec's order, its items in the plan's. */
export interface Laid<T extends Placed> {
  readonly axes: readonly string[];
  readonly items: readonly T[];
}

export interface Layout {
  readonly rows: readonly string[];
  readonly cols: readonly string[];
}

export interface Sheet<T extends Placed> {
  /** Labels of each row and column: the values of the chosen axes, joined. */
  readonly rowLabels: readonly string[];
  readonly colLabels: readonly string[];
  /** cells[row][col]: the items there, in plan order. */
  readonly cells: readonly (readonly (readonly T[])[])[];
}

/**
 * The layout a step gets unless the user chose: its first axis as rows, its second as columns,
 * so a two-axis matrix reads like the spec's grid (the rest, variants included, share a cell).
 */
export function defaultLayout(step: Pick<Laid<Placed>, 'axes'>): Layout {
  const [rows, cols] = step.axes;
  return { rows: rows === undefined ? [] : [rows], cols: cols === undefined ? [] : [cols] };
}

/** Keeps the axes the step has, each once, none on both sides; an empty choice stays empty. */
export function fitLayout(step: Pick<Laid<Placed>, 'axes'>, wanted: Layout): Layout {
  const has = (axis: string) => step.axes.includes(axis);
  const rows = [...new Set(wanted.rows.filter(has))];
  const cols = [...new Set(wanted.cols.filter((axis) => has(axis) && !rows.includes(axis)))];
  return { rows, cols };
}

const SEPARATOR = ' · ';

/** A variant reads as in job names (`v2`); a bare "2" under a column says nothing. */
function axisValue(item: Placed, axis: string): string {
  const value = item.axes[axis];
  if (value === undefined) return '—';
  return axis === 'variant' ? `v${value}` : value;
}

function labelOf(item: Placed, axes: readonly string[]): string {
  return axes.map((axis) => axisValue(item, axis)).join(SEPARATOR);
}

/** Distinct labels in the order items first show them (the plan's order, which is the spec's). */
function labelsOf(items: readonly Placed[], axes: readonly string[]): string[] {
  return [...new Set(items.map((item) => labelOf(item, axes)))];
}

export function sheetOf<T extends Placed>(step: Laid<T>, layout: Layout): Sheet<T> {
  const rowLabels = labelsOf(step.items, layout.rows);
  const colLabels = labelsOf(step.items, layout.cols);
  const cells = rowLabels.map(() => colLabels.map((): T[] => []));
  for (const item of step.items) {
    const row = rowLabels.indexOf(labelOf(item, layout.rows));
    const col = colLabels.indexOf(labelOf(item, layout.cols));
    cells[row]![col]!.push(item);
  }
  return { rowLabels, colLabels, cells };
}
