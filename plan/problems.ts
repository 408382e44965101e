/**
 * A problem in a spec, located in the file so an editor can jump to it. Every stage of planning
 * collects problems instead of throwing, so the user sees all of them in one pass.
 */
export interface SpecProblem {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based; absent where only the line is known (a row of a CSV table). */
  readonly column?: number;
  readonly message: string;
}

/** `file:line:col: message`, the form compilers use, which editors and terminals turn into links. */
export function formatProblem(problem: SpecProblem): string {
  const column = problem.column === undefined ? '' : `:${problem.column}`;
  return `${problem.file}:${problem.line}${column}: ${problem.message}`;
}

/**
 * Problems sorted by position, so the output reads top to bottom like the file (the spec's and
 * each table's in the order they were first met), each once (a default shared by several steps
 * would otherwise report the same mistake per step).
 */
export function sortProblems(problems: readonly SpecProblem[]): SpecProblem[] {
  const unique = new Map(problems.map((problem) => [formatProblem(problem), problem]));
  const files = [...new Set(problems.map((problem) => problem.file))];
  return [...unique.values()].sort(
    (a, b) =>
      files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line || (a.column ?? 0) - (b.column ?? 0),
  );
}
