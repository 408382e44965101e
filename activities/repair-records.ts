/**
 * A job's record that does not parse (empty after a disk filled, garbage written over it) would
 * make every re-run take the job as never made: created again, and "spent" reported though the
 * service, answering the same idempotency key, charged nothing. The records are the truth, so a
 * damaged one is made whole again before a re-run is priced: its prediction is found through the
 * campaign's claims (the predictions its creates made for that job) and looked up on the service,
 * never created again; its output is the file already saved, or is fetched again from the
 * prediction. It gets back what its save recorded beside the prediction: its parent, and the
 * provenance its file carries (repair-provenance.ts), so a file lost later is fetched again with
 * the same bytes rather than paid for anew. A record no claim or prediction accounts for is left
 * as it is (the job runs again).
 */
import { MODELS } from '../api/catalogue/index.ts';
import { retryRead, type ServiceClient } from '../api/client/index.ts';
import { formatUsd } from '../api/money.ts';
import type { Plan } from '../plan/types.ts';
import { readClaims } from '../records/claims.ts';
import { Manifest, ManifestEntry, readRecords, recordName } from '../records/manifest.ts';
import { sha256Of } from '../records/sha256.ts';
import { recordKey } from '../store/index.ts';
import { type Download, extensionOf, parentOf } from './finish/save-output.ts';
import { credentialOfFile } from './provenance/credentials/file-credential.ts';
import { credentialsOf } from './provenance/credentials/of-output.ts';
import { recordedProvenance } from './provenance/of-entry.ts';
import { sidecarKeyOf, withProvenance } from './provenance/with-provenance.ts';
import type { Provenance } from './provenance/xmp.ts';
import { deliveredProvenance, provenanceToDeliver, type Take } from './repair-provenance.ts';

/** Repairs the plan's damaged records; returns the names of the jobs repaired. */
export async function repairRecords(
  client: ServiceClient,
  plan: Plan,
  download: Download,
): Promise<string[]> {
  const manifest = await Manifest.open(plan.outputDir);
  const store = manifest.store;
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
      const entry = await entryOf(plan, manifest, { job, prediction, take: claim.regen }, download);
      await store.put(recordKey(name), `${JSON.stringify(ManifestEntry.parse(entry))}\n`);
      repaired.push(job.name);
      break;
    }
  }
  return repaired.sort();
}

/** The record of `prediction`'s output: the file saved for its take, else fetched again. */
async function entryOf(
  plan: Plan,
  manifest: Manifest,
  made: Take,
  download: Download,
): Promise<ManifestEntry> {
  const { job, prediction, take } = made;
  const store = manifest.store;
  const url = prediction.outputs[0]!;
  const ext = extensionOf(url, MODELS[job.model].kind);
  const stem = `${job.step}/${job.file ?? job.name}`;
  // A reviewer's retake is saved as `.take<n>` (finish/save-output.ts); any other take is not.
  const names = take > 0 ? [`${stem}.take${take}${ext}`, `${stem}${ext}`] : [`${stem}${ext}`];
  let saved: { file: string; sha256: string; bytes: number } | undefined;
  let provenance: Provenance | null = null;
  let signed = false;
  for (const file of names) {
    const stored = await store.stat(file);
    const sha256 = stored && (await sha256Of(store, file));
    if (stored && sha256) {
      saved = { file, sha256, bytes: stored.bytes };
      provenance = await deliveredProvenance(plan, manifest, made, file);
      // Signed by mediaflow for this job: a lost file later is fetched and signed again.
      signed = (await credentialOfFile(store, file))?.mediaflow?.job === job.key;
      break;
    }
  }
  const started = Date.now();
  let sidecar: { file: string; sha256: string } | null = null;
  if (saved) {
    // The sidecar its provenance was written to, when it could not be embedded (a video).
    const key = sidecarKeyOf(saved.file);
    const sha256 = provenance && (await store.stat(key)) && (await sha256Of(store, key));
    if (sha256) sidecar = { file: key, sha256 };
  } else {
    // Saved as any output is: with its provenance, so the record and the bytes agree.
    const file = names.at(-1)!;
    provenance = await provenanceToDeliver(plan, manifest, made);
    const xmp = withProvenance(provenance, file, credentialsOf(store, take, provenance.parentFile));
    saved = {
      file,
      ...(await download(url, { store, key: file }, { cleanUp: true, transform: xmp.transform })),
    };
    sidecar = await xmp.sidecar(store);
    signed = xmp.signed();
  }
  // Ordered among the job's takes by when the prediction was made (the view keeps the last).
  const at = prediction.createdAt ?? new Date().toISOString();
  return {
    key: job.key,
    step: job.step,
    name: job.name,
    model: job.model,
    input: { ...job.input },
    parent: await parentOf(manifest, job),
    prediction_id: prediction.id,
    credits_used: prediction.creditsUsed === null ? null : formatUsd(prediction.creditsUsed),
    file: saved.file,
    sha256: saved.sha256,
    bytes: saved.bytes,
    ...(sidecar ? { xmp: sidecar.file, xmp_sha256: sidecar.sha256 } : {}),
    ...(signed ? { c2pa: true } : {}),
    ...(provenance ? { provenance: recordedProvenance(provenance) } : {}),
    output_url: url,
    regenerations: take,
    created_at: at,
    finished_at: at,
    wait_ms: 0,
    download_ms: Date.now() - started,
  };
}
