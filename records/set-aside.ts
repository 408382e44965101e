/**
 * Outputs of edited-away jobs keep their bytes. An edit that leaves a job's name as it was (its
 * prompt changed, its model, a value output.name does not show) gives it a new key and the same
 * file: the new output would be written over the old one, and the old record would point at a
 * file whose sha256 no longer matches. So before a run starts, every recorded output of a job its
 * plan no longer has, whose file is one the plan's jobs write (same step and name, any take), is
 * moved beside it under a name holding its job key's start (`still/still-red.png` →
 * `still/still-red.1a2b3c4d.png`, its `.xmp` sidecar likewise), and a create-once note under
 * `.mediaflow/moved/` says where: records are never rewritten, and the manifest (manifest-view.ts)
 * lists the moved output, marked superseded, at its new name.
 *
 * A file whose bytes are no longer the record's (a later run already wrote over it) is not moved:
 * it is the current job's.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { PlannedJob } from '../plan/types.ts';
import { MOVED, type Store } from '../store/index.ts';
import { parseJson } from './jsonl.ts';
import type { ManifestEntry } from './manifest.ts';
import { OUTPUT_SUFFIX, outputIdOf, outputIdOfFile } from './outputs.ts';
import { sha256Of } from './sha256.ts';

export const MovedOutput = z.object({
  key: z.string(),
  prediction_id: z.string(),
  /** Where the record says the file is, and where it is now. */
  from: z.string(),
  file: z.string(),
  xmp: z.string().optional(),
  at: z.string(),
});
export type MovedOutput = z.infer<typeof MovedOutput>;

/** Every move noted in this location, by the prediction whose output was moved. */
export async function readMoves(store: Store): Promise<Map<string, MovedOutput>> {
  const moves = new Map<string, MovedOutput>();
  for await (const name of store.list(MOVED)) {
    const parsed = MovedOutput.safeParse(parseJson((await store.read(name)) ?? ''));
    if (parsed.success) moves.set(parsed.data.prediction_id, parsed.data);
  }
  return moves;
}

function noteOf(entry: ManifestEntry): MovedOutput {
  return {
    key: entry.key,
    prediction_id: entry.prediction_id,
    from: entry.file,
    file: asideName(entry.file, entry.key),
    ...(entry.xmp === undefined ? {} : { xmp: asideName(entry.xmp, entry.key) }),
    at: new Date().toISOString(),
  };
}

/** Prediction ids are the service's, not safe names. */
const noteName = (predictionId: string) =>
  createHash('sha256').update(predictionId).digest('hex').slice(0, 32);

/** `still/still-red.take1.png` of job `1a2b3c4d…` → `still/still-red.1a2b3c4d.take1.png`. */
export function asideName(file: string, key: string): string {
  const suffix = OUTPUT_SUFFIX.exec(file)?.[0] ?? '';
  return `${file.slice(0, file.length - suffix.length)}.${key.slice(0, 8)}${suffix}`;
}

type TargetJob = Pick<PlannedJob, 'key' | 'step' | 'name' | 'file'>;

/** Moves the outputs the plan's jobs would write over (above); returns their new names. */
export async function setAsideEdited(
  store: Store,
  takes: readonly ManifestEntry[],
  jobs: Iterable<TargetJob>,
): Promise<string[]> {
  const keys = new Set<string>();
  const targets = new Set<string>();
  for (const job of jobs) {
    keys.add(job.key);
    targets.add(outputIdOf(job.step, job.file ?? job.name));
  }
  const moves = await readMoves(store);
  const moved: string[] = [];
  for (const entry of takes) {
    if (keys.has(entry.key) || !targets.has(outputIdOfFile(entry.step, entry.file))) continue;
    const noted = moves.get(entry.prediction_id);
    if (noted && (await store.stat(noted.file))) continue;
    // Only the record's own bytes move: a file written over since is the current job's.
    if ((await sha256Of(store, entry.file).catch(() => undefined)) !== entry.sha256) continue;
    const note = noted ?? noteOf(entry);
    if (await store.stat(note.file)) continue; // never over another file
    // The note first: a run killed before the move moves it next time, never loses where it went.
    if (!noted)
      await store.createOnce(`${MOVED}${noteName(entry.prediction_id)}.json`, `${JSON.stringify(note)}\n`);
    await store.move(entry.file, note.file);
    if (entry.xmp !== undefined && note.xmp !== undefined) await store.move(entry.xmp, note.xmp);
    moved.push(note.file);
  }
  return moved;
}
