/**
 * A job's record that does not parse (empty after a disk filled, garbage written over it) would
 * make every re-run take the job as never made: created again, and "spent" reported though the
 * service, answering the same idempotency key, charged nothing. The records are the truth, so a
 * damaged one is made whole again before a re-run is priced: its prediction is found through the
 * campaign's claims (the predictions its creates made for that job) and looked up on the service,
 * never created again; its output is the file already saved, or is fetched again from the
 * prediction. A record no claim or prediction accounts for is left as it is (the job runs again).
 */
import { MODELS } from '../api/catalogue/index.ts';
import { retryRead, type ServiceClient } from '../api/client/index.ts';
import { formatUsd } from '../api/money.ts';
import type { Prediction } from '../api/wire/index.ts';
import type { Plan, PlannedJob } from '../plan/types.ts';
import { readClaims } from '../records/claims.ts';
import { ManifestEntry, readRecords, recordName } from '../records/manifest.ts';
import { sha256Of } from '../records/outputs.ts';
import { openStore, recordKey, type Store } from '../store/index.ts';
import { type Download, extensionOf } from './finish/save-output.ts';

/** Repairs the plan's damaged records; returns the names of the jobs repaired. */
export async function repairRecords(
  client: ServiceClient,
  plan: Plan,
  download: Download,
): Promise<string[]> {
  const store = openStore(plan.outputDir);
  const { entries, damaged } = await readRecords(store);
  if (damaged.length === 0) return [];
  const jobs = new Map(plan.jobs.map((job) => [job.key, job]));
  const claims = await readClaims(store, plan.campaign);
  const repaired: string[] = [];
  for (const name of damaged) {
    const job = jobs.get(name.split('.')[0]!);
    if (!job) continue;
    const recorded = new Set(
      entries.filter((entry) => entry.key === job.key).map((entry) => entry.prediction_id),
    );
    // The predictions made for the job that no record holds, first take first; a record named
    // after the prediction it replaced (manifest.ts, recordName) is never that prediction's own.
    const candidates = claims
      .filter((claim) => claim.key === job.key && !recorded.has(claim.prediction_id))
      .filter((claim) => name === job.key || recordName(job.key, claim.prediction_id) !== name)
      .sort((a, b) => a.regen - b.regen);
    for (const claim of candidates) {
      const prediction = await retryRead(() => client.predictions.get(claim.prediction_id)).catch(() => null);
      if (prediction?.status !== 'succeeded' || prediction.outputs.length === 0) continue;
      const entry = await entryOf(store, job, prediction, claim.regen, download);
      await store.put(recordKey(name), `${JSON.stringify(ManifestEntry.parse(entry))}\n`);
      repaired.push(job.name);
      break;
    }
  }
  return repaired.sort();
}

/** The record of `prediction`'s output: the file saved for its take, else fetched again. */
async function entryOf(
  store: Store,
  job: PlannedJob,
  prediction: Prediction,
  take: number,
  download: Download,
): Promise<ManifestEntry> {
  const url = prediction.outputs[0]!;
  const ext = extensionOf(url, MODELS[job.model].kind);
  const stem = `${job.step}/${job.file ?? job.name}`;
  // A reviewer's retake is saved as `.take<n>` (finish/save-output.ts); any other take is not.
  const names = take > 0 ? [`${stem}.take${take}${ext}`, `${stem}${ext}`] : [`${stem}${ext}`];
  let saved: { file: string; sha256: string; bytes: number } | undefined;
  for (const file of names) {
    const stored = await store.stat(file);
    const sha256 = stored && (await sha256Of(store, file));
    if (stored && sha256) {
      saved = { file, sha256, bytes: stored.bytes };
      break;
    }
  }
  const started = Date.now();
  if (!saved) {
    const file = names.at(-1)!;
    saved = { file, ...(await download(url, { store, key: file }, { cleanUp: true })) };
  }
  // Ordered among the job's takes by when the prediction was made (the view keeps the last).
  const made = prediction.createdAt ?? new Date().toISOString();
  return {
    key: job.key,
    step: job.step,
    name: job.name,
    model: job.model,
    input: { ...job.input },
    prediction_id: prediction.id,
    credits_used: prediction.creditsUsed === null ? null : formatUsd(prediction.creditsUsed),
    file: saved.file,
    sha256: saved.sha256,
    bytes: saved.bytes,
    output_url: url,
    regenerations: take,
    created_at: made,
    finished_at: made,
    wait_ms: 0,
    download_ms: Date.now() - started,
  };
}
