/**
 * Turns zod issues into ApiErrors whose message names the field and, for closed lists, the allowed
 * values, so a user can fix a request from the error alone.
 */
import type { z } from 'zod';
import { checkModelInput, type ModelLabel } from '../../api/catalogue/index.ts';
import type { ErrorCode } from '../../api/wire/index.ts';
import { ApiError } from './errors.ts';

/** Parses a request body (or query) with a wire schema; every problem is listed in the message. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what = 'body'): z.infer<S> {
  if (what === 'body' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw new ApiError('INVALID_REQUEST', 'the request body must be a JSON object');
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const first = issues[0]!;
  const messages = issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')}`;
    if (issue.code === 'invalid_value') {
      return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    return field ? `${field}: ${issue.message}` : issue.message;
  });
  const code: ErrorCode =
    first.code === 'unrecognized_keys'
      ? 'UNKNOWN_PARAMETER'
      : first.path.length > 0 && isMissing(value, first.path)
        ? 'MISSING_PARAMETER'
        : 'INVALID_PARAMETER';
  return reject(code, `invalid ${what}: ${messages.join('; ')}`, first);
}

function reject(code: ErrorCode, message: string, issue: z.core.$ZodIssue): never {
  const allowed = issue.code === 'invalid_value' ? issue.values.map(String) : undefined;
  throw new ApiError(code, message, {
    param: issue.path.map(String).join('.') || undefined,
    ...(allowed ? { allowed } : {}),
  });
}

function isMissing(root: unknown, path: readonly PropertyKey[]): boolean {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return true;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node === undefined;
}

/** Validates a model input with the catalogue; the first problem decides the code, all are listed. */
export function checkInputOrThrow(label: ModelLabel, input: unknown): Record<string, unknown> {
  const check = checkModelInput(label, input);
  if (check.ok) return check.input;
  const [first] = check.problems;
  const field = first!.path.map(String).join('.');
  let code: ErrorCode = 'INVALID_PARAMETER';
  if (field === '') code = first!.allowed ? 'UNKNOWN_PARAMETER' : 'INVALID_REQUEST';
  else if (isMissing(input, first!.path)) code = 'MISSING_PARAMETER';
  throw new ApiError(code, check.problems.map((p) => p.message).join('; '), {
    param: field ? `input.${field}` : 'input',
    ...(first!.allowed ? { allowed: first!.allowed } : {}),
  });
}
