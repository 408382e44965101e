/**
 * A protobuf timestamp from the server's describe() records in ms since the epoch, or null when
 * absent. Typed loosely (seconds may be a Long or a number) so tests can pass plain records.
 */
export interface Timestamp {
  readonly seconds?: unknown;
  readonly nanos?: number | null;
}

export const msOf = (t: Timestamp | null | undefined): number | null =>
  t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : null;
