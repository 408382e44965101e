/**
 * The manifest as a downstream tool reads it, made from the records (the truth: one create-once
 * record per output, manifest.ts) rather than from the lines appended while a campaign ran. Each
 * line is a record's entry and what the records around it say of it (docs/engine.md, "The
 * manifest's lines"):
 *
 * - `take`, `prompt` (as sent), `parent` (the job and file it was made from), `review` (who
 *   decided this take, what and when; absent while undecided);
 * - `provenance` as recorded, never filled with a later decision: it is what the file's XMP says,
 *   sealed when the file was saved, before anyone could decide on it (so a still's
 *   `provenance.review` is null; a video's names its still's approval, `of: "parent"`). An audit
 *   that fetches a lost file again embeds it from the entry read back from these very lines
 *   (activities/audit.ts, provenance/of-entry.ts): a decision joined into it would make bytes
 *   whose sha256 is not the one recorded. The line's `review` is where the decision is read.
 * - `superseded`: false for exactly the current plan's outputs, one per job of the plans the
 *   campaigns writing here last ran (current-plan.ts), each job's latest take; true for every
 *   other record (an earlier take, a job edited away), whose `file` is where its bytes are now
 *   (set-aside.ts moved it when a current job would have written over it).
 *
 * `run` rewrites a folder's manifest.jsonl with these lines when it ends, if the file differs (a
 * garbled or torn line, a line lost with its writer, an edit since): lines in the order their
 * outputs were recorded, so a job's latest take is its last line, as the workers' index expects.
 */
import type { DecisionRecord } from '../contract/review.ts';
import { isS3Url, MANIFEST_KEY, openStore, type Store } from '../store/index.ts';
import { readCurrentPlans } from './current-plan.ts';
import { readTakeDecisions } from './decisions.ts';
import { type ManifestEntry, readRecords } from './manifest.ts';
import { readMoves } from './set-aside.ts';

export type ManifestLine = ManifestEntry & {
  readonly take: number;
  readonly prompt: string | null;
  readonly parent: { key: string; prediction_id: string | null; file: string | null } | null;
  readonly review?: ReturnType<typeof reviewOf>;
  /** Where the record said the file was, when set-aside.ts moved it since. */
  readonly moved_from?: string;
  readonly superseded: boolean;
};

/** Every record as a line, oldest first. */
export async function manifestLines(store: Store): Promise<ManifestLine[]> {
  const [{ entries }, plans, moves] = await Promise.all([
    readRecords(store),
    readCurrentPlans(store),
    readMoves(store),
  ]);
  const latest = new Map<string, ManifestEntry>();
  for (const entry of entries) latest.set(entry.key, entry);
  const campaigns = new Set(plans?.campaigns ?? []);
  for (const entry of entries) if (entry.provenance) campaigns.add(entry.provenance.campaign);
  const decisions = new Map<string, DecisionRecord>();
  for (const campaign of campaigns)
    for (const [take, decision] of await readTakeDecisions(campaign, store)) decisions.set(take, decision);
  return entries.map((entry) => {
    const moved = moves.get(entry.prediction_id);
    const decision = decisions.get(`${entry.key}.${entry.regenerations}`);
    const current = (plans === null || plans.keys.has(entry.key)) && latest.get(entry.key) === entry;
    const prompt = entry.input.prompt;
    return {
      ...entry,
      ...(moved
        ? { file: moved.file, ...(moved.xmp ? { xmp: moved.xmp } : {}), moved_from: moved.from }
        : {}),
      take: entry.regenerations,
      prompt: typeof prompt === 'string' ? prompt : null,
      parent: entry.parent ?? parentOf(entry, plans?.parents),
      // Absent while the take is undecided, as in the exports before it.
      ...(decision ? { review: reviewOf(decision) } : {}),
      superseded: !current,
    };
  });
}

/** Who decided the line's take, what and when (`by` absent for a review timeout's decision). */
function reviewOf(decision: DecisionRecord) {
  const { action, by, at, take, source, note } = decision;
  return { action, by: by ?? null, at, take, source, note: note ?? null };
}

/** A record older than `parent`: its plan's parent key and the file its provenance names. */
function parentOf(
  entry: ManifestEntry,
  parents: ReadonlyMap<string, string> | undefined,
): ManifestLine['parent'] {
  const key = parents?.get(entry.key);
  if (key === undefined) return null;
  return { key, prediction_id: null, file: entry.provenance?.parent_file ?? null };
}

/** The lines as JSON lines text. */
export function manifestText(lines: readonly ManifestLine[]): string {
  return lines.map((line) => `${JSON.stringify(line)}\n`).join('');
}

/**
 * Writes the manifest from the records: always in S3 mode (the bucket's manifest.jsonl is only
 * ever this), on a folder only when manifest.jsonl differs. True when it was rewritten.
 */
export async function rebuildManifest(
  outputDir: string,
  store: Store = openStore(outputDir),
): Promise<{ text: string; lines: ManifestLine[]; rewritten: boolean }> {
  const lines = await manifestLines(store);
  const text = manifestText(lines);
  if (isS3Url(outputDir)) {
    await store.put(MANIFEST_KEY, text);
    return { text, lines, rewritten: true };
  }
  const existing = await store.read(MANIFEST_KEY);
  if (existing === text || (existing === undefined && text === '')) return { text, lines, rewritten: false };
  await store.put(MANIFEST_KEY, text);
  return { text, lines, rewritten: true };
}

/** The manifest's text, made from the records and written as rebuildManifest does. */
export async function materializeManifest(
  outputDir: string,
  store: Store = openStore(outputDir),
): Promise<string> {
  return (await rebuildManifest(outputDir, store)).text;
}
