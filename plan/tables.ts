/**
 * Tables a spec names under `data:` (a product feed, a spreadsheet export): read once, before
 * any step is prepared, each row kept with the line it came from so that a problem with a cell
 * (empty, a missing picture, a duplicate) is reported in the table, where it is fixed.
 *
 * CSV (or TSV) with a header row (csv-parse), JSON Lines (one object a line), or a YAML or JSON list of
 * objects (yaml, which reads JSON too). Cells are text, numbers or true/false; an empty cell is
 * "" (a JSON null too). A table whose header has an `id` column, else a `sku` column, names its
 * jobs by it, so it must be filled and unique; otherwise rows are named by their number.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CsvError, parse } from 'csv-parse/sync';
import { isMap, isNode, isSeq, LineCounter, parseDocument } from 'yaml';
import type { SpecProblem } from './problems.ts';
import type { Scalar, TableSpec } from './schema.ts';
import type { DataPath } from './source.ts';
import { didYouMean } from './suggest.ts';

export interface Row {
  /** 1-based, in file order, the header not counted. */
  readonly number: number;
  /** Where the row is in its file (1-based; a CSV row quoted over several lines: its last). */
  readonly line: number;
  readonly values: Readonly<Record<string, Scalar>>;
  /** The `id` (else `sku`) cell, else `row<number>`: what its jobs' names start with. */
  readonly name: string;
}

export interface Table {
  readonly name: string;
  /** Absolute path. */
  readonly file: string;
  readonly columns: readonly string[];
  /** Columns whose cells may be empty; any other cell a template reads must be filled. */
  readonly optional: readonly string[];
  readonly rows: readonly Row[];
}

/** JavaScript objects give this key a meaning of its own: as a column it would silently vanish. */
const PROTO = '__proto__';
const PROTO_COLUMN = '"__proto__" cannot name a column (JavaScript gives it a special meaning); rename it';

/** Columns that name a row, in order of preference. */
const NAME_COLUMNS = ['id', 'sku'] as const;

type Problem = (line: number, message: string, column?: number) => void;

/** Reads every table; one that cannot be read is left out (its steps then make no jobs). */
export async function loadTables(
  specDir: string,
  data: Readonly<Record<string, TableSpec>>,
  atSpec: (path: DataPath, message: string) => void,
  problems: SpecProblem[],
): Promise<Map<string, Table>> {
  const tables = new Map<string, Table>();
  for (const [name, entry] of Object.entries(data)) {
    const { file: relative, optional = [] } = typeof entry === 'string' ? { file: entry } : entry;
    const at: DataPath = typeof entry === 'string' ? ['data', name] : ['data', name, 'file'];
    const missing = (message: string) => atSpec(at, message);
    const file = path.resolve(specDir, relative);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      missing(
        code === 'ENOENT'
          ? `table file "${relative}" not found (looked for ${file}); paths are relative to the spec`
          : code === 'EISDIR'
            ? `"${relative}" is a folder, not a table file`
            : `cannot read table file "${relative}": ${String(error)}`,
      );
      continue;
    }
    const problem: Problem = (line, message, column) =>
      problems.push({ file, line, ...(column === undefined ? {} : { column }), message });
    const read = readRecords(file, text, problem, missing);
    if (read?.records.length === 0) problem(1, 'the table has no rows: a step reading it would make no job');
    // A naming problem (an empty or repeated id) leaves the rows readable: their jobs are still
    // built, so the same pass finds what else is wrong with them.
    if (!read) continue;
    for (const [index, column] of optional.entries()) {
      if (read.columns.includes(column)) continue;
      atSpec(
        ['data', name, 'optional', index],
        `no column "${column}" in ${path.basename(file)} (${read.columns.join(', ')})${didYouMean(column, read.columns)}`,
      );
    }
    const rows = namedRows(read.records, read.columns, problem);
    tables.set(name, { name, file, columns: read.columns, optional, rows });
  }
  return tables;
}

interface RawRecord {
  readonly line: number;
  readonly values: Record<string, Scalar>;
}

function readRecords(
  file: string,
  text: string,
  problem: Problem,
  unknownKind: (message: string) => void,
): { records: RawRecord[]; columns: string[] } | null {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.csv' || extension === '.tsv')
    return readCsv(text, extension === '.tsv' ? '\t' : ',', problem);
  if (extension === '.jsonl' || extension === '.ndjson') return readJsonLines(text, problem);
  if (['.yaml', '.yml', '.json'].includes(extension)) return readList(text, problem);
  unknownKind(
    `table file "${path.basename(file)}" is of no kind mediaflow reads: .csv or .tsv (with a header row), .jsonl (JSON Lines), or .yaml/.yml/.json (a list of objects)`,
  );
  return null;
}

function readCsv(
  text: string,
  delimiter: string,
  problem: Problem,
): { records: RawRecord[]; columns: string[] } | null {
  let columns: string[] = [];
  try {
    const parsed = parse(text, {
      bom: true,
      delimiter,
      info: true,
      skip_empty_lines: true,
      columns: (header: string[]) => {
        columns = header.map((column) => column.trim());
        const twice = columns.find((column, index) => columns.indexOf(column) !== index);
        if (twice !== undefined) throw new HeaderProblem(`column "${twice}" is named twice in the header`);
        if (columns.includes('')) throw new HeaderProblem('the header has an empty column name');
        if (columns.includes(PROTO)) throw new HeaderProblem(PROTO_COLUMN);
        return columns;
      },
    }) as { record: Record<string, string>; info: { lines: number } }[];
    if (columns.length === 0) {
      problem(
        1,
        'the table is empty: a CSV table starts with a header row naming its columns, then a row per job',
      );
      return null;
    }
    return { records: parsed.map(({ record, info }) => ({ line: info.lines, values: record })), columns };
  } catch (error) {
    if (error instanceof HeaderProblem) problem(1, error.message);
    else if (error instanceof CsvError) problem(Number(error.lines) || 1, csvMessage(error, columns));
    else throw error;
    return null;
  }
}

class HeaderProblem extends Error {}

/** csv-parse's reasons, said as what to change in the file. */
function csvMessage(error: CsvError, columns: readonly string[]): string {
  const record = Array.isArray(error.record) ? error.record : [];
  switch (error.code) {
    case 'CSV_RECORD_INCONSISTENT_COLUMNS':
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH':
      return `this row has ${record.length} ${record.length === 1 ? 'cell' : 'cells'}, the header ${columns.length} (${columns.join(', ')})${record.length > columns.length ? '; a cell holding a comma must be quoted: "Tee, white"' : ''}`;
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted cell opened here is never closed (a " is missing)';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'a quote inside a quoted cell must be doubled ("" for ")';
    default:
      return `CSV: ${error.message.replace(/ (at|on) line \d+\.?$/, '')}`;
  }
}

function readJsonLines(text: string, problem: Problem): { records: RawRecord[]; columns: string[] } | null {
  const records: RawRecord[] = [];
  let ok = true;
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      problem(index + 1, `not JSON: ${(error as Error).message}`);
      ok = false;
      return;
    }
    const values = scalarRecord(value, (message) => problem(index + 1, message));
    if (values) records.push({ line: index + 1, values });
    else ok = false;
  });
  return ok ? { records, columns: columnsOf(records) } : null;
}

function readList(text: string, problem: Problem): { records: RawRecord[]; columns: string[] } | null {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => lineCounter.linePos(offset);
  if (doc.errors.length > 0) {
    for (const error of doc.errors) {
      const { line, col } = at(error.pos[0]);
      problem(line, `YAML syntax: ${error.message.replace(/ at line \d+, column \d+.*$/s, '')}`, col);
    }
    return null;
  }
  if (!isSeq(doc.contents)) {
    problem(1, 'a YAML or JSON table is a list of objects, one a row ([{ "sku": "A1", … }, …])');
    return null;
  }
  const records: RawRecord[] = [];
  let ok = true;
  for (const item of doc.contents.items) {
    const { line, col } = at(isNode(item) ? (item.range?.[0] ?? 0) : 0);
    const values = scalarRecord(isMap(item) ? item.toJSON() : null, (message) => problem(line, message, col));
    if (values) records.push({ line, values });
    else ok = false;
  }
  return ok ? { records, columns: columnsOf(records) } : null;
}

/** An object whose values are text, numbers or true/false (null: an empty cell). */
function scalarRecord(value: unknown, problem: (message: string) => void): Record<string, Scalar> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problem('each row must be an object of column: value');
    return null;
  }
  const values: Record<string, Scalar> = {};
  for (const [column, cell] of Object.entries(value)) {
    if (column === PROTO) {
      problem(PROTO_COLUMN);
      return null;
    }
    if (cell === null) values[column] = '';
    else if (typeof cell === 'string' || typeof cell === 'number' || typeof cell === 'boolean')
      values[column] = cell;
    else {
      problem(
        `"${column}" holds ${Array.isArray(cell) ? 'a list' : 'an object'}; a cell is text, a number or true/false`,
      );
      return null;
    }
  }
  return values;
}

/** Every column any row has, in order of first appearance; a row without one has it empty. */
function columnsOf(records: readonly RawRecord[]): string[] {
  return [...new Set(records.flatMap((record) => Object.keys(record.values)))];
}

/** Rows named by their `id`/`sku` cell, which must then be filled and unique, else by their number. */
function namedRows(records: readonly RawRecord[], columns: readonly string[], problem: Problem): Row[] {
  const naming = NAME_COLUMNS.find((column) => columns.includes(column));
  const seen = new Map<string, number>();
  return records.map((record, index) => {
    const number = index + 1;
    if (naming === undefined)
      return { number, line: record.line, values: record.values, name: `row${number}` };
    const name = String(record.values[naming] ?? '').trim();
    if (name === '')
      problem(
        record.line,
        `empty "${naming}" cell: rows of a table with an "${naming}" column are named by it`,
      );
    const first = seen.get(name.toLowerCase());
    if (name !== '' && first !== undefined)
      problem(
        record.line,
        `"${naming}" ${JSON.stringify(name)} is also row ${first}'s; each row's ${naming} must be unique`,
      );
    else seen.set(name.toLowerCase(), number);
    return { number, line: record.line, values: record.values, name };
  });
}

/** `products.csv (name, colour, headline, photo)`, for messages about columns. */
export function describeTable(table: Table): string {
  return `${path.basename(table.file)} (${table.columns.join(', ')})`;
}
