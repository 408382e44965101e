/**
 * Validates a model input against the published schema and explains every problem in words a
 * user can act on: the field, what is wrong, and what is allowed. Shared by the emulator (to
 * reject requests) and the planner (to reject specs before anything is spent).
 */
import type { z } from 'zod';
import { MODELS, type ModelLabel } from './models.ts';

export interface InputProblem {
  /** Path inside `input`, e.g. ['duration']; empty for the whole input. */
  readonly path: readonly (string | number)[];
  readonly message: string;
  /** The allowed values or parameter names, when there is a closed list. */
  readonly allowed?: readonly string[];
}

export type InputCheck =
  | { readonly ok: true; readonly input: Record<string, unknown> }
  | { readonly ok: false; readonly problems: readonly InputProblem[] };

export function checkModelInput(label: ModelLabel, input: unknown): InputCheck {
  const definition = MODELS[label];
  // reportInput: zod 4 leaves issue.input empty otherwise, and messages quote the wrong value.
  const result = definition.input.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, input: result.data as Record<string, unknown> };
  return { ok: false, problems: result.error.issues.map((issue) => explain(label, issue, input)) };
}

function explain(label: ModelLabel, issue: z.core.$ZodIssue, input: unknown): InputProblem {
  const parameters = Object.keys(MODELS[label].input.shape);
  const path = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
  const field = path.join('.');
  if (path.length === 0 && issue.code === 'invalid_type') {
    return { path, message: `input must be an object of parameters, not ${describe(input)}` };
  }
  const missing = path.length === 1 && !Object.hasOwn(input as object, path[0]!);
  switch (issue.code) {
    case 'unrecognized_keys':
      return {
        path,
        message: `${label} has no parameter ${issue.keys.map((k) => `"${k}"`).join(', ')}; its parameters are: ${parameters.join(', ')}`,
        allowed: parameters,
      };
    case 'invalid_value': {
      const allowed = issue.values.map(String);
      return {
        path,
        message: `${missing ? `${label} requires "${field}"; it ` : `${field} `}must be one of ${allowed.map((v) => `"${v}"`).join(', ')} (as a string)`,
        allowed,
      };
    }
    case 'invalid_type':
      if (missing) return { path, message: `${label} requires "${field}" (a ${issue.expected})` };
      return { path, message: `${field} must be a ${issue.expected}, not ${describe(issue.input)}` };
    default:
      return { path, message: field ? `${field}: ${issue.message}` : issue.message };
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `the ${typeof value} ${JSON.stringify(value)}`;
}

/**
 * Why `prompt` cannot be sent to `label` (too long, empty, or a model without a prompt), or null.
 * For prompts given after planning (a regeneration's), checked when given rather than at the service.
 */
export function promptProblem(label: ModelLabel, prompt: string): string | null {
  const field = MODELS[label].input.shape.prompt as z.ZodType | undefined;
  if (field === undefined) return `${label} takes no prompt`;
  const result = field.safeParse(prompt);
  if (result.success) return null;
  const issue = result.error.issues[0]!;
  if (issue.code === 'too_big')
    return `the prompt is ${prompt.length.toLocaleString('en')} characters, over ${label}'s limit of ${Number(issue.maximum).toLocaleString('en')}`;
  return issue.message;
}
