/**
 * A parent job's derivatives: each derive step that follows its step makes one file from its
 * output, the operations prepared once for the step (plan/derive-steps.ts) with their texts
 * rendered for this job (its vars, matrix values and row), then keyed.
 */
import type { Operation } from '../derive/operations.ts';
import type { NamedTemplate } from './for-each.ts';
import { derivativeKey } from './keys.ts';
import type { ReviewRule } from './review.ts';
import type { DataPath } from './source.ts';
import { renderTemplate, type TemplateValue } from './templates.ts';
import type { DerivativeOutput, PlannedDerivative } from './types.ts';

export interface PreparedOperation {
  readonly operation: Operation;
  /** A text's value, rendered per parent job. */
  readonly text: NamedTemplate | null;
}

export interface PreparedDerive {
  readonly id: string;
  /** Its from: step's id, and the names a template may use in that step's jobs. */
  readonly from: string;
  readonly knownNames: ReadonlySet<string>;
  readonly output: DerivativeOutput;
  readonly operations: readonly PreparedOperation[];
  /** The tools' versions for its key: the clip's, and the still's after a `frame`. */
  readonly tools: string;
  /** Its review gate: each file waits for a decision (docs/review.md, "Derivatives"); null: none. */
  readonly review: ReviewRule | null;
}

export interface DerivativeParent {
  readonly key: string;
  /** Its file under its step's folder, else its name: the derivative's file under the derive step's. */
  readonly file: string;
  /** The parent job's names, looked up for the template at a path (empty cells are told there). */
  readonly lookupAt: (path: DataPath) => (name: string) => TemplateValue | undefined;
}

/** `problem`: said of the parent job (the combination its message names), at the text's path. */
export function derivativeOf(
  derive: PreparedDerive,
  parent: DerivativeParent,
  problem: (path: DataPath, message: string, text?: string) => void,
): PlannedDerivative {
  const operations = derive.operations.flatMap(({ operation, text }) => {
    if (operation.op !== 'text' || text === null) return [operation];
    const rendered = renderTemplate(text.template, parent.lookupAt(text.path));
    for (const name of rendered.missing ?? []) {
      // Names unknown in every combination were reported once by derive-steps.ts.
      if (derive.knownNames.has(name))
        problem(text.path, `{{${name}}} has no value in this combination`, `{{${name}`);
    }
    const value = String(rendered.value);
    // An optional cell left empty means no text for this job (an empty cell that is not
    // optional is reported in its table).
    return value === '' ? [] : [{ ...operation, value }];
  });
  return {
    step: derive.id,
    key: derivativeKey({ parent: parent.key, operations, tools: derive.tools }),
    file: parent.file,
    operations,
    output: derive.output,
  };
}
