/**
 * The one way the emulator refuses a request: an ApiError thrown anywhere becomes the error body
 * of service-spec.md part 7, with the HTTP status that api/wire's ERROR_CODES pairs with the code.
 */
import { ERROR_CODES, type ERROR_TYPES, type ErrorBody, type ErrorCode } from '../../api/wire/index.ts';

type ErrorType = (typeof ERROR_TYPES)[number];

export interface ErrorDetails {
  /** The offending field, e.g. `input.duration`. */
  param?: string;
  /** The closed list of values or names that would have been accepted. */
  allowed?: readonly string[];
  /** Extra response headers (Retry-After on 429s). */
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.status = ERROR_CODES[code];
  }

  toBody(): ErrorBody {
    return errorBody(this.code, this.message, this.details);
  }
}

export function errorType(status: number): ErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'insufficient_credits_error';
  if (status === 404) return 'not_found_error';
  if (status === 409) return 'conflict_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

export function errorBody(code: ErrorCode, message: string, details: ErrorDetails = {}): ErrorBody {
  return {
    error: {
      type: errorType(ERROR_CODES[code]),
      code,
      message,
      ...(details.param ? { param: details.param } : {}),
      ...(details.allowed ? { allowed: [...details.allowed] } : {}),
    },
  };
}
