/**
 * Output links as the emulator issues them (docs/service-assumptions.md, "Output links expire"):
 * with `linkTtlMs` set, each link carries `?expires=<epoch ms>` that long after it is issued and
 * the CDN answers 410 past it. A GET of the prediction, or its stream, issues fresh links, as
 * signed-URL services do; so do batch answers (a reply about a prediction, like GET) and
 * webhooks (sent as it ends, like the stream); search results list the stored, unsigned links. Two prompt markers make the faults deterministic for tests and demos: the links first
 * delivered for `[expired-link]` are expired already (a GET issues live ones), and those of
 * `[gone-output]` too, with no output left when asked again (the service deleted it).
 */
import type { StoredPrediction } from '../predictions/prediction.ts';

export const EXPIRED_LINK_MARKER = '[expired-link]';
export const GONE_OUTPUT_MARKER = '[gone-output]';

/** How long a link issued fresh for a marked prompt lives when no `linkTtlMs` is set. */
const MARKED_TTL_MS = 3_600_000;

/** `delivered`: as the stream reports the prediction ending; `fresh`: asked for again by GET. */
export type Issue = 'delivered' | 'fresh';

export type LinkIssuer = (prediction: StoredPrediction, issue: Issue) => string[];

export function linkIssuer(
  ttlMs: (prediction: StoredPrediction) => number,
  now: () => number = Date.now,
): LinkIssuer {
  return (prediction, issue) => {
    if (prediction.outputs.length === 0) return [];
    const gone = isGone(prediction);
    const marked = gone || promptOf(prediction).includes(EXPIRED_LINK_MARKER);
    if (gone && issue === 'fresh') return [];
    const ttl = ttlMs(prediction);
    if (ttl === 0 && !marked) return prediction.outputs;
    const expires = marked && issue === 'delivered' ? now() - 1 : now() + (ttl || MARKED_TTL_MS);
    return prediction.outputs.map((url) => `${url}?expires=${expires}`);
  };
}

/** Whether the service has deleted this prediction's output (the CDN then answers 404). */
export function isGone(prediction: StoredPrediction): boolean {
  return promptOf(prediction).includes(GONE_OUTPUT_MARKER);
}

/** Whether a link's `expires` (absent: never) has passed. */
export function linkExpired(expires: string | undefined, now: number = Date.now()): boolean {
  return expires !== undefined && !(Number(expires) >= now);
}

const promptOf = (prediction: StoredPrediction) => String(prediction.input.prompt ?? '');
