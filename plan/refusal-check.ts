/**
 * The checks of a step's `on_refusal:` that need the catalogue: a fallback is another model of the
 * same kind (an image for an image: its children take its output) with a local price (the
 * preflight's worst case and the budget commit it), and each job's input must suit it (expand.ts).
 */
import { checkModelInput, MODELS, type ModelLabel } from '../api/catalogue/index.ts';
import { type RefusalRule, refusalRuleOf } from './refusal.ts';
import type { Report } from './report.ts';
import type { ModelStep } from './schema.ts';
import type { DataPath } from './source.ts';

export function refusalRule(step: ModelStep, at: DataPath, report: Report): RefusalRule | null {
  const rule = refusalRuleOf(step.on_refusal);
  if (rule?.kind !== 'fallback') return rule;
  const where: DataPath = [...at, 'on_refusal', 'fallback'];
  const fallback = MODELS[rule.model];
  if (rule.model === step.model) {
    report(where, `the fallback must be another model than the step's own (${step.model})`);
  } else if (fallback.kind !== MODELS[step.model].kind) {
    report(
      where,
      `${rule.model} makes ${fallback.kind}s and ${step.model} makes ${MODELS[step.model].kind}s: a fallback must make the same kind`,
    );
  } else if (rule.model === 'V5') {
    // V5's price rule is not published (api/catalogue/models.ts): only the service knows it.
    report(
      where,
      `${rule.model} has no local price, so the worst case cannot be priced: choose another fallback`,
    );
  }
  return rule;
}

/** Why `input` does not suit the fallback model, or null when it does. */
export function fallbackProblem(model: ModelLabel, input: Readonly<Record<string, unknown>>): string | null {
  const checked = checkModelInput(model, input);
  if (checked.ok) return null;
  const issue = checked.problems[0]!;
  return `the fallback model ${model} does not take this step's input: ${issue.message}`;
}
