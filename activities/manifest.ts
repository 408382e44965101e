/**
 * The manifest: `manifest.jsonl` in the output folder, one line per finished job. It is the
 * record users keep, and it is how a re-run knows what exists already (decision 2).
 *
 * Exactly one line per job and prediction, however many workers finish it: before appending, a
 * writer creates `.mediaflow/records/<key>` (O_EXCL, holding the same line), and only the process
 * that created it appends. A check-then-append raced between processes; a create-once file does not.
 * If that writer dies between the two steps, the record still answers lookups (get()).
 *
 * Lines are written and read by jsonl.ts: checked writes, torn tails skipped (never cut: another
 * worker may be appending). Each worker keeps an index that it refreshes from the bytes others
 * appended when a lookup misses.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { createOnce } from './create-once.ts';
import { AppendedLines, appendLines, isMissing, type LineWriter, nodeWriter, parseJson } from './jsonl.ts';
import { stateDirOf } from './plan-store.ts';

export const ManifestEntry = z.object({
  key: z.string(),
  step: z.string(),
  name: z.string(),
  model: z.string(),
  input: z.record(z.string(), z.unknown()),
  prediction_id: z.string(),
  /** Decimal string, as the service reports it; null when the record did not say. */
  credits_used: z.string().nullable(),
  /** Relative to the output folder. */
  file: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
  output_url: z.string(),
  regenerations: z.number().int(),
  created_at: z.string(),
  finished_at: z.string(),
  wait_ms: z.number().int(),
  download_ms: z.number().int(),
});
export type ManifestEntry = z.infer<typeof ManifestEntry>;

export const MANIFEST_FILE = 'manifest.jsonl';

export class Manifest {
  private readonly entries = new Map<string, ManifestEntry>();
  private readonly appended: AppendedLines<typeof ManifestEntry>;

  private constructor(
    readonly outputDir: string,
    private readonly writer: LineWriter,
  ) {
    this.appended = new AppendedLines(join(outputDir, MANIFEST_FILE), ManifestEntry);
  }

  get file(): string {
    return join(this.outputDir, MANIFEST_FILE);
  }

  static async open(outputDir: string, writer: LineWriter = nodeWriter): Promise<Manifest> {
    const manifest = new Manifest(outputDir, writer);
    await manifest.refresh();
    return manifest;
  }

  /** The job's latest entry: from the manifest, else from its record (a writer died before appending). */
  async get(key: string): Promise<ManifestEntry | undefined> {
    const known = this.entries.get(key);
    if (known) return known;
    await this.refresh();
    return this.entries.get(key) ?? (await this.fromRecord(key));
  }

  all(): IterableIterator<ManifestEntry> {
    return this.entries.values();
  }

  /**
   * Records a finished job once: `replaces` is the prediction whose lost file this one replaces
   * (null for the job's first output). False when another writer recorded it first.
   */
  record(entry: ManifestEntry, replaces: string | null): boolean {
    const line = JSON.stringify(ManifestEntry.parse(entry));
    const marker = join(stateDirOf(this.outputDir), 'records', recordName(entry.key, replaces));
    if (!createOnce(marker, `${line}\n`, this.writer)) return false;
    appendLines(this.file, [line], this.writer);
    this.entries.set(entry.key, entry);
    return true;
  }

  /** Reads lines appended since the last read (by this process or another worker). */
  async refresh(): Promise<void> {
    for (const entry of await this.appended.next()) this.entries.set(entry.key, entry);
  }

  private async fromRecord(key: string): Promise<ManifestEntry | undefined> {
    let text: string;
    try {
      text = await readFile(join(stateDirOf(this.outputDir), 'records', recordName(key, null)), 'utf8');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    const parsed = ManifestEntry.safeParse(parseJson(text));
    return parsed.success && parsed.data.key === key ? parsed.data : undefined;
  }
}

/**
 * The create-once record of a job's output: the job key for its first output; with the replaced
 * prediction's id (hashed: ids are the service's, not safe file names) for an output regenerated
 * after the first was lost.
 */
function recordName(key: string, replaces: string | null): string {
  if (replaces === null) return key;
  return `${key}.${createHash('sha256').update(replaces).digest('hex').slice(0, 16)}`;
}

/** One Manifest per output folder per worker process. */
export class Manifests {
  private readonly open = new Map<string, Promise<Manifest>>();

  constructor(private readonly writer: LineWriter = nodeWriter) {}

  of(outputDir: string): Promise<Manifest> {
    let manifest = this.open.get(outputDir);
    if (!manifest) {
      manifest = Manifest.open(outputDir, this.writer);
      manifest.catch(() => this.open.delete(outputDir));
      this.open.set(outputDir, manifest);
    }
    return manifest;
  }
}
