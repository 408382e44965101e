/**
 * Turns zod issues from the spec schema into problems a person can act on: located at the YAML
 * node of the issue's path (the key itself for an unknown key), saying what is wrong and what is
 * allowed, with a "did you mean" for misspelt keys and enum values.
 */
import type { z } from 'zod';
import type { SpecProblem } from './problems.ts';
import type { DataPath, SpecSource } from './source.ts';
import { didYouMean, quoteList } from './suggest.ts';

export function shapeProblems(source: SpecSource, error: z.ZodError, schema: z.ZodType): SpecProblem[] {
  return error.issues.flatMap(mappingBranch(source)).flatMap((issue) => {
    const path = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
    const where = describePath(path);
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeys(schema, path);
      return issue.keys.map((key) =>
        source.problemAt(
          path,
          `${where ? `${where}: ` : ''}unknown field "${key}"${didYouMean(key, known)}; allowed fields: ${known.join(', ')}`,
          { key },
        ),
      );
    }
    return [source.problemAt(path, `${where || 'the spec'} ${explain(issue, valueAt(source.data, path))}`)];
  });
}

/**
 * A mapping given where a union allows a mapping or a scalar (`review: true` or `review: {…}`):
 * what is wrong inside the mapping, field by field, rather than the union's "Invalid input".
 */
function mappingBranch(source: SpecSource) {
  return function flatten(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
    if (issue.code !== 'invalid_union') return [issue];
    const value = valueAt(
      source.data,
      issue.path.filter((p): p is string | number => typeof p !== 'symbol'),
    );
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return [issue];
    const shaped = issue.errors.filter(
      (branch) => !branch.some((i) => i.code === 'invalid_type' && i.path.length === 0),
    );
    if (shaped.length !== 1) return [issue];
    return shaped[0]!.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })).flatMap(flatten);
  };
}

function explain(issue: z.core.$ZodIssue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return `is required (${article(issue.expected)})`;
      return issue.message.startsWith('Invalid input') || issue.message.startsWith('Invalid')
        ? `must be ${article(issue.expected)}, not ${describe(value)}`
        : `${issue.message}, not ${describe(value)}`;
    case 'invalid_value': {
      const allowed = issue.values.map(String);
      if (value === undefined)
        return `is required: ${allowed.length === 1 ? allowed[0] : `one of ${quoteList(allowed)}`}`;
      if (issue.values.length === 1 && !issue.message.startsWith('Invalid')) return issue.message;
      return `is ${describe(value)}, which is not allowed${didYouMean(String(value), allowed)}; allowed: ${quoteList(allowed)}`;
    }
    case 'too_small':
    case 'too_big':
      if (issue.origin === 'number' || issue.origin === 'int') {
        const bound = issue.code === 'too_small' ? `at least ${issue.minimum}` : `at most ${issue.maximum}`;
        return `must be ${bound}, not ${describe(value)}`;
      }
      return issue.message.startsWith('must') ? `${issue.message}, not ${describe(value)}` : issue.message;
    case 'invalid_format':
    case 'invalid_union':
      return issue.message.startsWith('must') ? `${issue.message}, not ${describe(value)}` : issue.message;
    default:
      return issue.message;
  }
}

/** `steps[1].input.prompt`: how a user would name the place in the file. */
export function describePath(path: DataPath): string {
  return path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part),
    '',
  );
}

export function describe(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value === 'string' ? 'the text' : `the ${typeof value}`} ${JSON.stringify(value)}`;
}

function article(expected: string): string {
  const words: Record<string, string> = { object: 'a mapping', array: 'a list', int: 'a whole number' };
  return words[expected] ?? (/^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`);
}

function valueAt(data: unknown, path: DataPath): unknown {
  let value = data;
  for (const part of path) value = (value as Record<string | number, unknown> | undefined)?.[part];
  return value;
}

/** The declared keys of the object schema at `path`, for "unknown field" messages. */
function knownKeys(schema: z.ZodType, path: DataPath): string[] {
  let current: unknown = schema;
  for (const part of path) {
    current = unwrap(current);
    const def = (current as { def?: { type?: string; element?: unknown; shape?: Record<string, unknown> } })
      .def;
    if (def?.type === 'array') current = def.element;
    else if (def?.type === 'object') current = def.shape?.[part];
    else return [];
  }
  const shape = (unwrap(current) as { def?: { shape?: Record<string, unknown> } }).def?.shape;
  return shape ? Object.keys(shape) : [];
}

/** Through optional and default wrappers, and to the mapping a union of a scalar and a mapping allows. */
function unwrap(schema: unknown): unknown {
  let current = schema as { def?: { type?: string; innerType?: unknown; options?: unknown[] } };
  while (current?.def) {
    const { type, innerType, options } = current.def;
    if (type === 'optional' || type === 'default') current = innerType as typeof current;
    else {
      const mapping =
        type === 'union' ? options?.find((o) => (o as typeof current).def?.type === 'object') : undefined;
      if (mapping) current = mapping as typeof current;
      break;
    }
  }
  return current;
}
