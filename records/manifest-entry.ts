/**
 * One finished job's record, as the manifest keeps it (manifest.ts): created once per output, read
 * back by re-runs, audits, exports and the review page. Derived types only: the schema is the truth.
 */
import { z } from 'zod';

export const ManifestEntry = z.object({
  key: z.string(),
  step: z.string(),
  name: z.string(),
  model: z.string(),
  input: z.record(z.string(), z.unknown()),
  prediction_id: z.string(),
  /** Decimal string, as the service reports it; null when the record did not say. */
  credits_used: z.string().nullable(),
  /** Relative to the output folder (a key of the store). */
  file: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
  /**
   * The output's XMP sidecar (its key in the store) and the sidecar's sha256, when its provenance
   * is not inside the file (a video, a PNG carrying a C2PA manifest). Absent in older records.
   */
  xmp: z.string().optional(),
  xmp_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** True when the file carries mediaflow's signed C2PA manifest (docs/provenance.md). Absent: unsigned. */
  c2pa: z.boolean().optional(),
  /**
   * What the output's XMP says beyond the fields above (activities/provenance/of-entry.ts), so a
   * file fetched again gets the same bytes and matches its sha256. Absent in older records.
   */
  provenance: z
    .object({
      campaign: z.string(),
      plan_digest: z.string(),
      parent_file: z.string().nullable(),
      review: z
        .object({
          action: z.string(),
          by: z.string().nullable(),
          at: z.string(),
          note: z.string().optional(),
          of: z.enum(['self', 'parent']),
        })
        .nullable(),
    })
    .optional(),
  output_url: z.string(),
  /**
   * The job and file this output was made from (a video from its still), as they were when it was
   * saved; null for a job without a parent. Absent in older records.
   */
  parent: z
    .object({ key: z.string(), prediction_id: z.string().nullable(), file: z.string().nullable() })
    .nullable()
    .optional(),
  /** The take: 0 for the first output, then one more for each regeneration or retake. */
  regenerations: z.number().int(),
  created_at: z.string(),
  finished_at: z.string(),
  wait_ms: z.number().int(),
  download_ms: z.number().int(),
});
export type ManifestEntry = z.infer<typeof ManifestEntry>;
