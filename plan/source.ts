/**
 * The spec file as YAML: parsed once with a LineCounter, so any path into the data (a zod issue's
 * path, a template's field) maps back to a line and column. When a path does not exist in the
 * file (a missing field), the nearest existing parent is used.
 */
import { readFile } from 'node:fs/promises';
import { type Document, isMap, isPair, isScalar, LineCounter, type Node, parseDocument, visit } from 'yaml';
import type { SpecProblem } from './problems.ts';

export type DataPath = readonly (string | number)[];

export interface SpecSource {
  readonly file: string;
  /** The parsed data, or undefined when the YAML itself is broken. */
  readonly data: unknown;
  /** YAML syntax errors and duplicate keys. */
  readonly problems: readonly SpecProblem[];
  /** Problem at the value found at `path`; `at` points inside a scalar's source text when found. */
  problemAt(path: DataPath, message: string, at?: { key?: string; text?: string }): SpecProblem;
}

export async function loadSpecSource(file: string): Promise<SpecSource> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error);
    return { file, data: undefined, problems: [{ file, line: 1, column: 1, message: reason }], problemAt };
  }
  return parseSpecText(file, text);

  function problemAt(_path: DataPath, message: string): SpecProblem {
    return { file, line: 1, column: 1, message };
  }
}

export function parseSpecText(file: string, text: string): SpecSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: true });
  const at = (offset: number, message: string): SpecProblem => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col, message };
  };
  const problems = doc.errors.map((error) =>
    at(
      error.pos[0],
      error.code === 'DUPLICATE_KEY' ? duplicateKeyMessage(text, error.pos) : yamlMessage(error.message),
    ),
  );
  if (problems.length === 0) problems.push(...reservedKeys(doc).map((offset) => at(offset, PROTO_KEY)));
  let data: unknown;
  if (problems.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      // yaml refuses aliases that expand past maxAliasCount (a "billion laughs" file) by throwing.
      if (!(error instanceof ReferenceError)) throw error;
      problems.push(at(firstAlias(doc), ALIAS_BOMB));
    }
  }
  return {
    file,
    data: problems.length === 0 ? data : undefined,
    problems,
    problemAt(path, message, where = {}) {
      return at(offsetOf(doc, text, path, where), message);
    },
  };
}

/**
 * JavaScript objects give `__proto__` a meaning of its own: as a key it would vanish (or replace
 * the object's prototype) somewhere between the YAML and the plan. No parameter or template name
 * needs it, so it is refused wherever it appears rather than made to survive every layer.
 */
const PROTO_KEY =
  '"__proto__" cannot be used as a key (JavaScript gives it a special meaning, so it would silently disappear); rename it';

/** yaml's default: an alias may expand to at most this many nodes before the file is refused. */
const MAX_ALIAS_COUNT = 100;
const ALIAS_BOMB =
  'YAML aliases (*name) from here on expand to too much data (nested aliases multiply, the "billion laughs" file); write the values out instead';

function reservedKeys(doc: Document): number[] {
  const offsets: number[] = [];
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && pair.key.value === '__proto__') offsets.push(pair.key.range?.[0] ?? 0);
    },
  });
  return offsets;
}

function firstAlias(doc: Document): number {
  let offset = 0;
  visit(doc, {
    Alias(_, node) {
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

function offsetOf(
  doc: Document,
  text: string,
  path: DataPath,
  where: { key?: string; text?: string },
): number {
  // Walk down as far as the path exists, remembering the deepest node reached.
  let node: unknown = doc.contents;
  let offset = (doc.contents as Node | null)?.range?.[0] ?? 0;
  for (const segment of where.key === undefined ? path : [...path, where.key]) {
    const pair = isMap(node)
      ? node.items.find((item) => isPair(item) && keyText(item.key) === String(segment))
      : undefined;
    const child = pair ? pair.value : (node as { items?: unknown[] } | null)?.items?.[segment as number];
    if (pair && segment === where.key) return (pair.key as Node).range?.[0] ?? offset;
    if (child === undefined || child === null) break;
    node = isPair(child) ? child.value : child;
    offset = (node as Node | null)?.range?.[0] ?? offset;
  }
  if (where.text !== undefined && isScalar(node) && node.range) {
    const index = text.slice(node.range[0], node.range[1]).indexOf(where.text);
    if (index >= 0) return node.range[0] + index;
  }
  return offset;
}

function keyText(key: unknown): string | undefined {
  return isScalar(key) ? String(key.value) : undefined;
}

function duplicateKeyMessage(text: string, pos: [number, number]): string {
  const key = /^[^:\n,}]*/.exec(text.slice(pos[0]))![0].trim();
  return `duplicate key "${key}": each key may appear once in a mapping (the second one would silently win)`;
}

/** yaml's messages sometimes end with context we already give as line:col. */
function yamlMessage(message: string): string {
  return `YAML syntax: ${message.replace(/ at line \d+, column \d+.*$/s, '')}`;
}
