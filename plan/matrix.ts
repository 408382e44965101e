/**
 * Matrix expansion with GitHub Actions' semantics
 * (https://docs.github.com/actions/using-jobs/using-a-matrix-for-your-jobs):
 * - the axes make a cartesian product, in the order they are written;
 * - `exclude` drops every combination that matches all the keys of an entry (a partial match);
 * - `include`, applied after exclude, adds its keys to every original combination whose original
 *   values it does not contradict (added values may be overwritten by a later entry); an entry
 *   that fits no original combination becomes a new combination of its own.
 */
import type { Matrix, Scalar } from './schema.ts';

// Keys are looked up with Object.hasOwn, never `in`: a matrix key such as `constructor` or
// `toString` is a normal key, not something every object inherits.

export type Combination = Readonly<Record<string, Scalar>>;

export function matrixAxes(matrix: Matrix | undefined): [string, Scalar[]][] {
  if (!matrix) return [];
  return Object.entries(matrix).filter(
    (entry): entry is [string, Scalar[]] => entry[0] !== 'include' && entry[0] !== 'exclude',
  );
}

/** Size of the cartesian product before exclude/include, computed without building it. */
export function productSize(matrix: Matrix | undefined): number {
  return matrixAxes(matrix).reduce((size, [, values]) => size * values.length, 1);
}

export function expandMatrix(matrix: Matrix | undefined): Combination[] {
  const axes = matrixAxes(matrix);
  let originals: Record<string, Scalar>[] = [{}];
  for (const [key, values] of axes) {
    originals = originals.flatMap((combination) => values.map((value) => ({ ...combination, [key]: value })));
  }
  if (axes.length === 0 && matrix?.include?.length) originals = [];
  const excluded = exclusion(matrix?.exclude ?? []);
  const kept = originals.filter((combination) => !excluded(combination));
  const added: Record<string, Scalar>[] = kept.map(() => ({}));
  const extra: Combination[] = [];
  for (const entry of matrix?.include ?? []) {
    let fitted = false;
    kept.forEach((combination, index) => {
      if (!contradicts(combination, entry)) {
        Object.assign(added[index]!, withoutOriginalKeys(entry, combination));
        fitted = true;
      }
    });
    if (!fitted) extra.push({ ...entry });
  }
  return [...kept.map((combination, index) => ({ ...combination, ...added[index] })), ...extra];
}

/**
 * Whether a combination matches an exclude entry, in time linear in the combinations: entries are
 * grouped by the keys they name, each group a set of value tuples, so a combination costs one
 * lookup per distinct key set instead of one comparison per entry (10,000 entries over 100,000
 * combinations were a billion comparisons). JSON keeps `1`, `"1"` and `true` apart, as `===` does.
 */
function exclusion(entries: readonly Combination[]): (combination: Combination) => boolean {
  const groups = new Map<string, { keys: string[]; tuples: Set<string> }>();
  for (const entry of entries) {
    const keys = Object.keys(entry).sort();
    const signature = JSON.stringify(keys);
    let group = groups.get(signature);
    if (!group) {
      group = { keys, tuples: new Set() };
      groups.set(signature, group);
    }
    group.tuples.add(JSON.stringify(keys.map((key) => entry[key])));
  }
  const all = [...groups.values()];
  return (combination) =>
    all.some(({ keys, tuples }) =>
      tuples.has(
        JSON.stringify(keys.map((key) => (Object.hasOwn(combination, key) ? combination[key] : null))),
      ),
    );
}

function contradicts(original: Combination, entry: Combination): boolean {
  return Object.entries(entry).some(
    ([key, value]) => Object.hasOwn(original, key) && original[key] !== value,
  );
}

function withoutOriginalKeys(entry: Combination, original: Combination): Combination {
  return Object.fromEntries(Object.entries(entry).filter(([key]) => !Object.hasOwn(original, key)));
}
