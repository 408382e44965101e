/**
 * Before a re-run is priced: every recorded output of the plan is checked (its file there with the
 * recorded size; with `verify`, its sha256 too). A file that is missing or wrong is fetched again
 * from its prediction while the service still serves it, at no cost; otherwise it is set aside
 * (`<file>.mismatch`, never deleted) so the job reads as lost, and the preflight prices it as a
 * new generation (outputs.ts: a job is done only while its file is intact).
 */
import pLimit from 'p-limit';
import { retryRead, type ServiceClient } from '../api/client/index.ts';
import type { Plan, PlannedJob } from '../plan/types.ts';
import { Manifest, type ManifestEntry } from '../records/manifest.ts';
import { fileIntact } from '../records/outputs.ts';
import { BadKey } from '../store/index.ts';
import type { Download } from './finish/save-output.ts';
import { credentialsOf } from './provenance/credentials/of-output.ts';
import { refetchedCredentialHolds } from './provenance/credentials/refetched.ts';
import { provenanceOfEntry } from './provenance/of-entry.ts';
import { withProvenance } from './provenance/with-provenance.ts';

export interface Audit {
  /** Names of jobs whose file was fetched again from their prediction. */
  readonly refetched: readonly string[];
  /** Names of jobs whose output is lost: they run again, as new generations. */
  readonly lost: readonly string[];
  /** Why each lost output could not be fetched again from its prediction, by job name. */
  readonly reasons: Readonly<Record<string, string>>;
}

export interface AuditOptions {
  readonly verify: boolean;
  readonly download: Download;
}

export async function auditOutputs(client: ServiceClient, plan: Plan, options: AuditOptions): Promise<Audit> {
  const manifest = await Manifest.open(plan.outputDir);
  const refetched: string[] = [];
  const lost: string[] = [];
  const reasons: Record<string, string> = {};
  // Hashing is disk-bound and fetching network-bound: a few at a time keeps both busy.
  const limit = pLimit(8);
  const entryOf = await manifest.walk();
  // Parents before their children: a clip signed again names its still's file as an ingredient,
  // which must be back in place for the clip to be signed as it first was.
  for (const wave of byDepth(plan.jobs))
    await Promise.all(
      wave.map((job) =>
        limit(async () => {
          const entry = await entryOf(job.key);
          if (!entry || (await fileIntact(manifest.store, entry, options.verify))) return;
          // Signed again when it was fetched again: intact when its manifest still holds.
          if (options.verify && entry.c2pa && (await refetchedCredentialHolds(manifest.store, entry))) return;
          const why = await refetch(client, manifest, entry, options.download);
          if (why === null) refetched.push(job.name);
          else {
            await setAside(manifest, entry);
            lost.push(job.name);
            reasons[job.name] = why;
          }
        }),
      ),
    );
  return { refetched: refetched.sort(), lost: lost.sort(), reasons };
}

/** The plan's jobs by how many ancestors each has: roots first. */
function byDepth(jobs: readonly PlannedJob[]): PlannedJob[][] {
  const byKey = new Map(jobs.map((job) => [job.key, job]));
  const depths = new Map<string, number>();
  const depthOf = (job: PlannedJob): number => {
    const known = depths.get(job.key);
    if (known !== undefined) return known;
    const parent = job.parent === null ? undefined : byKey.get(job.parent);
    const depth = parent ? depthOf(parent) + 1 : 0;
    depths.set(job.key, depth);
    return depth;
  };
  const waves: PlannedJob[][] = [];
  for (const job of jobs) {
    const depth = depthOf(job);
    while (waves.length <= depth) waves.push([]);
    waves[depth]!.push(job);
  }
  return waves;
}

/** Null when the prediction's output came back with the recorded size and sha256; else why not. */
async function refetch(
  client: ServiceClient,
  manifest: Manifest,
  entry: ManifestEntry,
  download: Download,
): Promise<string | null> {
  try {
    const prediction = await retryRead(() => client.predictions.get(entry.prediction_id));
    const url = prediction.status === 'succeeded' ? prediction.outputs[0] : undefined;
    if (url === undefined) return `its prediction is ${prediction.status}, with no output`;
    // The same provenance as first delivered, so the same bytes: the recorded sha256 holds. A
    // signed file differs in its signature alone (C2PA salts every assertion): its manifest must
    // validate and name this job and prediction, at the recorded size (docs/provenance.md).
    const recorded = provenanceOfEntry(entry);
    // Signed again only when it was signed first: an output delivered unsigned is fetched unsigned.
    const credentials =
      recorded && entry.c2pa ? credentialsOf(manifest.store, entry.regenerations, recorded.parentFile) : null;
    const provenance = recorded ? withProvenance(recorded, entry.file, credentials) : null;
    const got = await download(
      url,
      { store: manifest.store, key: entry.file },
      { cleanUp: true, transform: provenance?.transform },
    );
    const same = got.sha256 === entry.sha256 && got.bytes === entry.bytes;
    if (!same && !(credentials && (await refetchedCredentialHolds(manifest.store, entry))))
      return `the service's output is not the recorded one (${got.bytes} bytes, sha256 ${got.sha256.slice(0, 12)})`;
    await provenance?.sidecar(manifest.store);
    return null;
  } catch (error) {
    // Forgotten by the service, link expired or refused: the job is made again, saying why.
    return error instanceof Error ? error.message : String(error);
  }
}

/** A wrong file is kept for the user, under another name, so the job no longer reads as done. */
async function setAside(manifest: Manifest, entry: ManifestEntry): Promise<void> {
  try {
    await manifest.store.move(entry.file, `${entry.file}.mismatch`);
  } catch (error) {
    if (!(error instanceof BadKey)) throw error; // a record pointing outside: nothing of ours to move
  }
}
