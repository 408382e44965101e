/**
 * The provenance a repaired record needs (repair-records.ts), so that when its file is lost later
 * the audit fetches it again with the very bytes first delivered (activities/audit.ts) and pays
 * nothing. It is rebuilt from the plan, the decision records and the prediction as the save made
 * it (provenance/of-job.ts); for a file still saved, it is taken only when it is exactly the XMP
 * that file carries (the plan digest read from there: the run that made it may not be the last),
 * since a record whose provenance differs from its file's would make a refetch fail its sha256.
 */
import type { Prediction } from '../api/wire/index.ts';
import type { Plan, PlannedJob } from '../plan/types.ts';
import { readCurrentPlan } from '../records/current-plan.ts';
import { readDecision } from '../records/decisions.ts';
import type { Manifest } from '../records/manifest.ts';
import { markOf, provenanceOf } from './provenance/of-job.ts';
import { sidecarKeyOf } from './provenance/with-provenance.ts';
import { type Provenance, xmpPacket } from './provenance/xmp.ts';

/** Where a PNG's embedded XMP is looked for: its chunks before the pixels, a few hundred bytes. */
const HEAD_BYTES = 64 * 1024;
const XMP_START = '<x:xmpmeta';
const XMP_END = '</x:xmpmeta>\n';

export interface Take {
  readonly job: PlannedJob;
  readonly prediction: Prediction;
  readonly take: number;
}

/**
 * What provenance a save of `take` would give it now, with the plan digest given (null: the
 * campaign's current plan), and the variants a first save may have had: a still's own decision is
 * made after it is delivered, so its first file carries none, or its parent's.
 */
async function candidates(
  plan: Plan,
  manifest: Manifest,
  { job, prediction, take }: Take,
  digest: string | null,
): Promise<Provenance[]> {
  const planDigest = digest ?? (await readCurrentPlan(manifest.store, plan.campaign))?.digest ?? '';
  const decision = (key: string, n: number) =>
    readDecision(plan.outputDir, plan.campaign, key, n, manifest.store);
  // A reviewer's retake is made with the prompt the decision on the take before gave.
  const prompt = take > 0 ? (await decision(job.key, take - 1))?.prompt : undefined;
  const made = await provenanceOf(plan, manifest, job, prediction, {
    campaign: plan.campaign,
    outputDir: plan.outputDir,
    regen: take,
    ...(prompt !== undefined && { prompt }),
    startedAt: Date.parse(prediction.createdAt ?? '') || Date.now(),
    plan: { digest: planDigest },
  });
  const own = await decision(job.key, take);
  const parent = job.parent === null ? undefined : await manifest.get(job.parent);
  const ofParent = parent && (await decision(parent.key, parent.regenerations));
  return [
    made,
    { ...made, review: null },
    ...(own ? [{ ...made, review: markOf(own, 'self') }] : []),
    ...(ofParent ? [{ ...made, review: markOf(ofParent, 'parent') }] : []),
  ];
}

/** The provenance `file` (saved for `take`) was delivered with, or null when none rebuilt matches it. */
export async function deliveredProvenance(
  plan: Plan,
  manifest: Manifest,
  take: Take,
  file: string,
): Promise<Provenance | null> {
  const carried = await carriedXmp(manifest, file);
  const digest = carried && /<mediaflow:PlanDigest>([^<]*)<\/mediaflow:PlanDigest>/.exec(carried)?.[1];
  if (!digest) return null;
  for (const candidate of await candidates(plan, manifest, take, digest))
    if (xmpPacket(candidate) === carried) return candidate;
  return null;
}

/** The provenance a file saved now for `take` gets: as any save of it would. */
export async function provenanceToDeliver(plan: Plan, manifest: Manifest, take: Take): Promise<Provenance> {
  return (await candidates(plan, manifest, take, null))[0]!;
}

/** The XMP document `file` carries: its sidecar's, else the one embedded in its first bytes. */
async function carriedXmp(manifest: Manifest, file: string): Promise<string | null> {
  const sidecar = await manifest.store.read(sidecarKeyOf(file)).catch(() => undefined);
  const text = sidecar ?? (await manifest.store.readRange(file, 0, HEAD_BYTES))?.toString('utf8');
  const start = text?.indexOf(XMP_START) ?? -1;
  const end = start < 0 ? -1 : text!.indexOf(XMP_END, start);
  return end < 0 ? null : text!.slice(start, end + XMP_END.length);
}
