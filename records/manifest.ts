/**
 * The manifest: one record per finished job, in the campaign's store (store/). It is the record
 * users keep, and it is how a re-run knows what exists already (decision 2).
 *
 * Each job's record is created once (`.mediaflow/records/<name>`, store.createOnce: O_EXCL-like on
 * a folder, `If-None-Match: *` on S3), so however many workers on however many hosts finish a job,
 * one of them records it and the others are told. The record is the truth; `manifest.jsonl` is the
 * user's view of the records: appended by the writer that created the record on a folder (as it
 * always was), and made again from the records by manifest-view.ts: in S3 mode, and on a folder
 * whose file differs from them (a garbled line, an edit since), at the end of `run`.
 *
 * A job's latest record is found by following a chain: `<key>` holds its first output, and an
 * output regenerated after the one before was lost is recorded as `<key>.<hash of the replaced
 * prediction>`; so lookups read a few small objects, never a listing.
 *
 * On a folder, lines are written and read by jsonl.ts (checked writes, torn tails skipped); each
 * worker indexes where each job's latest line starts (refreshed from the bytes others appended when
 * a lookup misses) and rereads the line when asked: whole entries, ~1 KB each with their inputs,
 * are kept only for the most recent jobs, so memory does not grow with the campaign.
 */
import { join } from 'node:path';
import type { Micros } from '../api/money.ts';
import { isS3Url, MANIFEST_KEY, openStore, RECORDS, recordKey, type Store } from '../store/index.ts';
import { indexKey } from './index-key.ts';
import {
  AppendedLines,
  appendLines,
  type LineWriter,
  nodeWriter,
  parseJson,
  readCheckedLines,
  readLineAt,
  readLines,
} from './jsonl.ts';
import { ManifestEntry } from './manifest-entry.ts';
import { paidByJob, paidInAllRuns } from './paid.ts';
import { predictionTag } from './prediction-tag.ts';
import type { UnsavedRecord } from './unsaved.ts';

// The record's schema is its own file; importers of the manifest find it here too.
export { ManifestEntry } from './manifest-entry.ts';

export const MANIFEST_FILE = MANIFEST_KEY;

/**
 * Entries kept whole: the most recently recorded or read, which the lookups that follow soonest
 * ask for (a chained job's parent, a retried finish). About 1 KB each.
 */
export const RECENT_ENTRIES = 1_000;

/** The folder's manifest.jsonl: appended, read incrementally. */
class FolderView {
  readonly appended: AppendedLines<typeof ManifestEntry>;

  /**
   * Where the latest line of each job manifest.jsonl lists starts, as far as this worker has read
   * it, by the job key's index key (index-key.ts: the line read is checked against the key).
   */
  readonly lines = new Map<number, number>();

  readonly file: string;
  readonly writer: LineWriter;

  constructor(file: string, writer: LineWriter) {
    this.file = file;
    this.writer = writer;

    this.appended = new AppendedLines(file, ManifestEntry);
  }
}

export class Manifest {
  /** Oldest first: a Map keeps insertion order, so the first key is the one to drop. */
  private readonly recent = new Map<string, ManifestEntry>();

  /** Where the campaign writes: a folder, or `s3://bucket/prefix`. */
  readonly outputDir: string;
  readonly store: Store;
  private readonly view: FolderView | null;

  private constructor(outputDir: string, store: Store, view: FolderView | null) {
    this.outputDir = outputDir;
    this.store = store;
    this.view = view;
  }

  /**
   * `store` defaults to the one `outputDir` names (store/index.ts, openStore). Nothing is read
   * until a lookup misses (get, restoreLine): a command that only walks or totals the lines would
   * otherwise parse them all twice (a second of a 100,000-job re-run each time).
   */
  static async open(
    outputDir: string,
    writer: LineWriter = nodeWriter,
    store: Store = openStore(outputDir),
  ): Promise<Manifest> {
    const view = isS3Url(outputDir) ? null : new FolderView(join(outputDir, MANIFEST_FILE), writer);
    return new Manifest(outputDir, store, view);
  }

  /**
   * The job's latest entry: recent, else its line in the folder's manifest, else (after reading the
   * lines appended since) from its records. Like a recent entry, a listed job's line is taken
   * without that refresh. A job not listed (what most finishes ask) costs the refresh and one read
   * of its record; a listed one, one read of its line.
   */
  async get(key: string): Promise<ManifestEntry | undefined> {
    let found = this.known(key);
    if (!found) {
      await this.refresh();
      found = this.known(key) ?? (await this.fromRecords(key));
    }
    if (found) this.remember(found);
    return found;
  }

  /**
   * Lookups for a walk over a whole plan (a re-run's audit, then its count of the jobs left): the
   * folder's lines read and parsed once, where get() per job rereads each job's line past the
   * entries it keeps (a 100,000-job re-run did that twice per job, docs/benchmarks.md
   * `rerun-100k`). A job not listed there, and every job when the file is damaged or in S3 mode, is
   * looked up with get(), which also finds a record whose line was never appended. Holds every
   * listed entry while the walk lasts, as recorded() does: for a command, never for a worker.
   */
  async walk(): Promise<(key: string) => Promise<ManifestEntry | undefined>> {
    const listed = new Map<string, ManifestEntry>();
    if (this.view) {
      const { values, damaged } = await readCheckedLines(this.view.file, ManifestEntry);
      if (!damaged) for (const entry of values) listed.set(entry.key, entry);
    }
    return async (key) => listed.get(key) ?? (await this.get(key));
  }

  /**
   * Every record, oldest first: on a folder, the lines of manifest.jsonl (each job's latest), read
   * afresh; in S3 mode, every record object (a listing, then a read of each). For cancel, export,
   * the report and the review page, never per job.
   */
  async recorded(): Promise<ManifestEntry[]> {
    if (this.view) {
      const latest = new Map<string, ManifestEntry>();
      for (const entry of await this.takes()) latest.set(entry.key, entry);
      return [...latest.values()];
    }
    return this.takes();
  }

  /**
   * What every recorded take cost, across every run of the campaign (earlier takes of a retaken
   * or remade job included) with the charged refusals (`refused`), at least `thisRun`
   * (paidInAllRuns): what `status`, `run` and `report` show as the campaign's total.
   */
  async paid(
    thisRun: Micros = 0,
    refused: Micros = 0,
    unsaved: readonly UnsavedRecord[] = [],
  ): Promise<Micros> {
    return paidInAllRuns(paidByJob(await this.takes(), unsaved), thisRun, refused);
  }

  /**
   * Every take recorded, oldest first, each its own: the folder's lines, or every record object.
   * A folder's manifest.jsonl with a garbled line or a torn tail is not trusted to list them
   * (a record would be missing, and a page would show its job failed): the records are read.
   */
  async takes(): Promise<ManifestEntry[]> {
    if (!this.view) return (await readRecords(this.store)).entries;
    const { values, damaged } = await readCheckedLines(this.view.file, ManifestEntry);
    if (!damaged) return values;
    // The lines that did parse too: a line whose record is gone still lists its output.
    const takes = new Map(values.map((entry) => [`${entry.key} ${entry.prediction_id}`, entry]));
    for (const entry of (await readRecords(this.store)).entries)
      takes.set(`${entry.key} ${entry.prediction_id}`, entry);
    return [...takes.values()].sort((a, b) => a.finished_at.localeCompare(b.finished_at));
  }

  /**
   * Records a finished job once: `replaces` is the prediction whose lost file this one replaces
   * (null for the job's first output). False when another writer recorded it first.
   */
  async record(entry: ManifestEntry, replaces: string | null): Promise<boolean> {
    const line = JSON.stringify(ManifestEntry.parse(entry));
    const created = await this.store.createOnce(recordKey(recordName(entry.key, replaces)), `${line}\n`);
    if (!created.created) return false;
    // A writer that dies here leaves the record without its line: get() still finds it, and the
    // job's next attempt restores the line (restoreLine).
    if (this.view) appendLines(this.view.file, [line], this.view.writer);
    this.remember(entry);
    return true;
  }

  /**
   * On a folder, the line of a job recorded by a writer that died before appending it, so
   * manifest.jsonl lists every recorded job. Only a job's next attempt calls it, once the attempt
   * before it is gone, so one job's line is not appended by two writers.
   */
  async restoreLine(key: string): Promise<void> {
    if (!this.view) return;
    await this.refresh();
    if (this.listed(key)) return;
    // Another job's line where the index points (their keys begin alike): read them all to be sure.
    if (this.view.lines.has(indexKey(key))) {
      if ((await readLines(this.view.file, ManifestEntry)).some((line) => line.key === key)) return;
    }
    const entry = await this.fromRecords(key);
    // Indexed by the next refresh, which reads it back like any appended line.
    if (entry) appendLines(this.view.file, [JSON.stringify(entry)], this.view.writer);
  }

  /**
   * restoreLine for each of `keys`, the folder's lines read once to find those listed (a lookup
   * per key rereads each one's line: 20 s of a 100,000-job re-run, docs/benchmarks.md
   * `rerun-100k`). For a command, never for a worker: it holds every line while it looks.
   */
  async restoreLines(keys: Iterable<string>): Promise<void> {
    if (!this.view) return;
    const { values } = await readCheckedLines(this.view.file, ManifestEntry);
    const listed = new Set(values.map((entry) => entry.key));
    for (const key of keys) if (!listed.has(key)) await this.restoreLine(key);
  }

  /**
   * On a folder, reads the lines appended since the last read (by this process or another worker)
   * and returns their entries, oldest first; none in S3 mode.
   */
  async refresh(): Promise<ManifestEntry[]> {
    if (!this.view) return [];
    const appended = await this.view.appended.next();
    for (const { value, offset } of appended) {
      this.view.lines.set(indexKey(value.key), offset);
      // A newer line of a recent job (its lost file made again) replaces the entry kept.
      this.remember(value);
    }
    return appended.map((line) => line.value);
  }

  private remember(entry: ManifestEntry): void {
    this.recent.delete(entry.key);
    this.recent.set(entry.key, entry);
    if (this.recent.size > RECENT_ENTRIES) this.recent.delete(this.recent.keys().next().value!);
  }

  /** Recent, or on a folder the job's latest line. */
  private known(key: string): ManifestEntry | undefined {
    return this.recent.get(key) ?? this.listed(key);
  }

  /** On a folder, the job's latest line in manifest.jsonl, read again where the index says it starts. */
  private listed(key: string): ManifestEntry | undefined {
    const offset = this.view?.lines.get(indexKey(key));
    if (offset === undefined) return undefined;
    const entry = readLineAt(this.view!.file, offset, ManifestEntry);
    // Another job's line there (their keys share an index key), or the file was replaced since:
    // the records still tell.
    return entry?.key === key ? entry : undefined;
  }

  /** Follows the job's chain of records to its latest (see the top of this file). */
  private async fromRecords(key: string): Promise<ManifestEntry | undefined> {
    let latest: ManifestEntry | undefined;
    for (let name = key; ; ) {
      const text = await this.store.read(recordKey(name));
      const parsed = text === undefined ? undefined : ManifestEntry.safeParse(parseJson(text));
      if (!parsed?.success || parsed.data.key !== key) return latest;
      latest = parsed.data;
      name = recordName(key, latest.prediction_id);
    }
  }
}

/** Every record of a store: the entries (oldest first) and the names of those that do not parse. */
export async function readRecords(store: Store): Promise<{ entries: ManifestEntry[]; damaged: string[] }> {
  const names: string[] = [];
  for await (const key of store.list(RECORDS)) names.push(key);
  const texts = await store.readAll(names);
  const entries: ManifestEntry[] = [];
  const damaged: string[] = [];
  texts.forEach((text, i) => {
    const parsed = text === undefined ? undefined : ManifestEntry.safeParse(parseJson(text));
    if (parsed?.success) entries.push(parsed.data);
    else if (text !== undefined) damaged.push(names[i]!.slice(RECORDS.length));
  });
  entries.sort((a, b) => a.finished_at.localeCompare(b.finished_at));
  return { entries, damaged };
}

/**
 * The create-once record of a job's output: the job key for its first output; with the replaced
 * prediction's id (hashed: ids are the service's, not safe names) for an output regenerated
 * after the first was lost.
 */
export function recordName(key: string, replaces: string | null): string {
  if (replaces === null) return key;
  return `${key}.${predictionTag(replaces)}`;
}
