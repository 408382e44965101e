/**
 * The one way the emulator refuses a request: an ApiError thrown anywhere becomes the error body
 * of service-spec.md part 7, with the HTTP status that api/wire's ERROR_CODES pairs with the code.
 */
import { ERROR_CODES, type ErrorBody, type ErrorCode, errorTypeForStatus } from '../../api/wire/index.ts';

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

  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.code = code;
    this.details = details;

    this.status = ERROR_CODES[code];
  }

  toBody(): ErrorBody {
    return errorBody(this.code, this.message, this.details);
  }
}

export function errorBody(code: ErrorCode, message: string, details: ErrorDetails = {}): ErrorBody {
  return {
    error: {
      type: errorTypeForStatus(ERROR_CODES[code]),
      code,
      message,
      ...(details.param ? { param: details.param } : {}),
      ...(details.allowed ? { allowed: [...details.allowed] } : {}),
    },
  };
}
