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
import {
  COMPOSITE_WITH_TRAINED_ALGORITHMIC_MEDIA,
  type Provenance,
  TRAINED_ALGORITHMIC_MEDIA,
} from '../xmp.ts';

export const MEDIAFLOW_ASSERTION = 'com.github.mediaflow.provenance';

/** How a derivative's `c2pa.opened` names the file it was made from (its `parentOf` ingredient). */
export const PARENT_INGREDIENT = 'parent';

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
  /** A derivative's step, key and operations; absent on a generation's own file. */
  derived: z.object({ step: z.string(), key: z.string(), operations: z.array(z.string()) }).optional(),
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
    ...(p.derived
      ? { derived: { step: p.derived.step, key: p.derived.key, operations: [...p.derived.operations] } }
      : {}),
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
          actions: actionsOf(provenance),
        },
      },
      { label: MEDIAFLOW_ASSERTION, data: mediaflowAssertion(provenance, take) },
    ],
  };
}

/**
 * A generation is created by its model; a derivative is opened from its parent (the `parentOf`
 * ingredient) and then edited, one action per operation, each marked as a composite with the
 * model's output, as IPTC and C2PA ask for an edit of generated media.
 */
function actionsOf(provenance: Provenance) {
  if (!provenance.derived) {
    return [
      {
        action: 'c2pa.created',
        digitalSourceType: TRAINED_ALGORITHMIC_MEDIA,
        softwareAgent: { name: provenance.model },
        when: provenance.createdAt,
      },
    ];
  }
  const agent = { name: 'mediaflow', version: '0.1.0' };
  return [
    {
      action: 'c2pa.opened',
      softwareAgent: agent,
      when: provenance.createdAt,
      parameters: { ingredientIds: [PARENT_INGREDIENT] },
    },
    ...provenance.derived.actions.map((action, index) => ({
      action,
      digitalSourceType: COMPOSITE_WITH_TRAINED_ALGORITHMIC_MEDIA,
      softwareAgent: agent,
      description: provenance.derived?.operations[index],
    })),
  ];
}
