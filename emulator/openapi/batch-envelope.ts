/**
 * The body of `POST /v1/predictions/batch`: the emulator's own envelope around the service's batch
 * items, described in the OpenAPI document and parsed by the route; each item is checked alone.
 */
import { z } from 'zod';

export const MAX_BATCH_ITEMS = 100;

export const BatchEnvelope = z.object({
  requests: z
    .array(z.unknown().meta({ description: 'A BatchItemRequest (components.schemas), checked alone' }))
    .min(1)
    .max(MAX_BATCH_ITEMS),
});
