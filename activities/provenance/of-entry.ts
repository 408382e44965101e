/**
 * An output's provenance as its record keeps it, and back: the record holds every field of the
 * XMP, so an output fetched again (activities/audit.ts) gets the very bytes first delivered, and
 * the sha256 recorded of them still holds.
 */
import type { ManifestEntry } from '../../records/manifest.ts';
import type { Provenance } from './xmp.ts';

export type RecordedProvenance = NonNullable<ManifestEntry['provenance']>;

/** The part of `provenance` the record's other fields do not already hold. */
export function recordedProvenance(provenance: Provenance): RecordedProvenance {
  return {
    campaign: provenance.campaign,
    plan_digest: provenance.planDigest,
    parent_file: provenance.parentFile,
    review: provenance.review,
  };
}

/** The provenance the output of `entry` was delivered with; null for a record older than provenance. */
export function provenanceOfEntry(entry: ManifestEntry): Provenance | null {
  const recorded = entry.provenance;
  if (!recorded) return null;
  const prompt = entry.input.prompt;
  return {
    model: entry.model,
    prompt: typeof prompt === 'string' ? prompt : null,
    campaign: recorded.campaign,
    planDigest: recorded.plan_digest,
    jobKey: entry.key,
    predictionId: entry.prediction_id,
    parentFile: recorded.parent_file,
    review: recorded.review,
    createdAt: entry.created_at,
  };
}
