import type { OperationName } from './operations.ts';

/** Which of a derivative's operations failed: its place in the list (0-based) and its name. */
export interface OperationAt {
  readonly index: number;
  readonly name: OperationName;
}

/**
 * A derivative that cannot be made from these inputs (an aspect ratio the frame cannot give, a
 * file that will not fit `max_bytes`, a clip ffmpeg refuses). Retrying makes the same failure, so
 * the activity ends the job as `derive_failed` with this message instead of retrying.
 */
export class DeriveError extends Error {
  override readonly name = 'DeriveError';
  /** The failing operation, or null when the input itself is at fault (unreadable, not an image). */
  readonly operation: OperationAt | null;
  readonly reason: string;

  constructor(operation: OperationAt | null, reason: string) {
    super(operation === null ? reason : `operation ${operation.index + 1} (${operation.name}): ${reason}`);
    this.operation = operation;
    this.reason = reason;
  }
}
