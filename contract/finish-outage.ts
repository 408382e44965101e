/**
 * A finish (the wait for a prediction and its download) that meets a service outage: the
 * activity keeps retrying, so the workflow hears nothing and its progress names no pause, yet
 * `status` must say why nothing moves, as it does for creates (docs/engine.md, "A service outage
 * pauses"). From the OUTAGE_AFTER_ATTEMPTS-th attempt on, the finish fails each attempt with this
 * type (retryable, and not a failure kind: a workflow never acts on it) and the time it first met
 * the outage; `status` reads it from the pending activities (control/finish-outage.ts).
 */
import { z } from 'zod';

export const FINISH_OUTAGE_TYPE = 'service_unavailable_while_finishing';

/** The failure's details, and what the activity carries from attempt to attempt in its heartbeat. */
export const FinishOutageDetails = z.object({ unavailableSince: z.number() });
export type FinishOutageDetails = z.infer<typeof FinishOutageDetails>;
