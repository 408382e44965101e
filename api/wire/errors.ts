/**
 * The error body of service-spec.md part 7 and the codes the emulator uses. The set of codes and
 * HTTP statuses is "not shown" in the spec; ours is listed in docs/service-assumptions.md. The
 * client never depends on a code being in this list: it classifies by HTTP status first.
 */
import { z } from 'zod';

export const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'insufficient_credits_error',
  'not_found_error',
  'conflict_error',
  'rate_limit_error',
  'api_error',
] as const;

export const ErrorBody = z.looseObject({
  error: z.looseObject({
    type: z.string(),
    message: z.string(),
    code: z.string(),
    /** The offending input field, when there is one. */
    param: z.string().nullish(),
    /** Allowed values or parameter names, when the list is closed. */
    allowed: z.array(z.string()).nullish(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Codes the emulator sends, with the HTTP status each comes with. */
export const ERROR_CODES = {
  INVALID_JSON: 400,
  INVALID_REQUEST: 400,
  INVALID_PARAMETER: 400,
  MISSING_PARAMETER: 400,
  UNKNOWN_PARAMETER: 400,
  INVALID_CURSOR: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  UNAUTHENTICATED: 401,
  INVALID_API_KEY: 401,
  INSUFFICIENT_CREDITS: 402,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** The emulator's answer to a Host header it does not serve (a DNS-rebinding page). */
  MISDIRECTED_REQUEST: 421,
  MODEL_NOT_FOUND: 404,
  PREDICTION_NOT_FOUND: 404,
  NOT_CANCELABLE: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  /** The content policy refused the prompt: nothing created, nothing charged. */
  CONTENT_REFUSED: 400,
  /** Deleting the key that makes the request: it would lock its caller out. */
  API_KEY_IN_USE: 409,
  /** Deleting the account's only key: nobody could use the API until a restart. */
  LAST_API_KEY: 409,
  RATE_LIMITED: 429,
  TOO_MANY_IN_FLIGHT: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The `error.type` that goes with an HTTP status (part 7 names only `invalid_request_error`; the
 * rest is our choice). Shared so the emulator sends, and the client assumes for a body-less
 * error reply, the same category.
 */
export function errorTypeForStatus(status: number): (typeof ERROR_TYPES)[number] {
  if (status === 401 || status === 403) return 'authentication_error';
  if (status === 402) return 'insufficient_credits_error';
  if (status === 404) return 'not_found_error';
  if (status === 409) return 'conflict_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/**
 * Whether an error (of a create) or a failed prediction's `error` names a content refusal. Ours
 * are `CONTENT_REFUSED` and `OUTPUT_FLAGGED` (docs/service-assumptions.md, "Content refusals"); real
 * services say it in many ways (`content_policy_violation`, `NSFW_CONTENT`, `SAFETY_FILTER`,
 * `MODERATION_BLOCKED`…), so the client takes any code or type naming content, moderation, safety
 * or a flag. Refusals of our own making (`DOWNLOAD_REFUSED`) name none of these.
 */
export function isContentRefusal(error: {
  readonly code?: string | null;
  readonly type?: string | null;
}): boolean {
  return [error.code, error.type].some((word) => typeof word === 'string' && REFUSAL_WORDS.test(word));
}

const REFUSAL_WORDS = /content|moderat|nsfw|safety|flagged/i;
