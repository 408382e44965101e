/**
 * What mediaflow's C2PA manifest says of one output: the same facts as its XMP (xmp.ts), signed.
 * - `c2pa.actions.v2`: `c2pa.created`, IPTC's `trainedAlgorithmicMedia`, the model as the software
 *   agent, when the service made it;
 * - `com.github.mediaflow.provenance`: what only mediaflow knows (the prompt as sent, the campaign,
 *   the plan digest, the job and its take, the prediction, the parent file, the review decision
 *   that let the output be made). Documented in docs/provenance.md; read back by `mediaflow verify`.
 * Ingredients (the service's own manifest, a clip's still) are added by sign.ts, from their bytes.
 */
import { basename } from 'node:path';
import { z } from 'zod';
import { type Provenance, TRAINED_ALGORITHMIC_MEDIA } from '../xmp.ts';

export const MEDIAFLOW_ASSERTION = 'com.github.mediaflow.provenance';

/** The mediaflow assertion, as signed and as `mediaflow verify` parses it back. */
export const MediaflowAssertion = z.object({
  campaign: z.string(),
  plan_digest: z.string(),
  job: z.string(),
  take: z.number().int().nonnegative(),
  prediction: z.string(),
  model: z.string(),
  prompt: z.string().nullable(),
  parent_file: z.string().nullable(),
  review: z
    .object({
      action: z.string(),
      by: z.string().nullable(),
      at: z.string(),
      note: z.string().nullable(),
      of: z.enum(['self', 'parent']),
    })
    .nullable(),
});
export type MediaflowAssertion = z.infer<typeof MediaflowAssertion>;

export function mediaflowAssertion(provenance: Provenance, take: number): MediaflowAssertion {
  const p = provenance;
  return {
    campaign: p.campaign,
    plan_digest: p.planDigest,
    job: p.jobKey,
    take,
    prediction: p.predictionId,
    model: p.model,
    prompt: p.prompt,
    parent_file: p.parentFile,
    review: p.review && {
      action: p.review.action,
      by: p.review.by,
      at: p.review.at,
      note: p.review.note ?? null,
      of: p.review.of,
    },
  };
}

/** The manifest definition the SDK's Builder takes (c2pa-rs's ManifestDefinition, as JSON). */
export function manifestDefinition(provenance: Provenance, take: number, file: string, format: string) {
  return {
    claim_generator_info: [{ name: 'mediaflow', version: '0.1.0' }],
    title: basename(file),
    format,
    assertions: [
      {
        label: 'c2pa.actions.v2',
        data: {
          actions: [
            {
              action: 'c2pa.created',
              digitalSourceType: TRAINED_ALGORITHMIC_MEDIA,
              softwareAgent: { name: provenance.model },
              when: provenance.createdAt,
            },
          ],
        },
      },
      { label: MEDIAFLOW_ASSERTION, data: mediaflowAssertion(provenance, take) },
    ],
  };
}
