/**
 * The bounds of one output download (docs/engine.md, "Downloads"): how many fetches a body that
 * arrives short or stalls gets, the deadline of all of them together, and the slowest rate a
 * body may keep. Read from the environment on every download, so a worker's settings apply
 * without a restart of anything but the worker; every value is checked and a bad one refused.
 *
 * A stall counts as one of the bounded fetches, like a short body: a CDN node that trickles is
 * often passed by on a new connection, and one bound is easier to reason about than two. The job
 * ends with the fault its last fetch met (`download_stalled` or `download_failed`).
 */
import { ConfigurationError, ServiceError } from '../api/client/index.ts';

export interface DownloadBounds {
  /** Fetches of one file before its job fails (MEDIAFLOW_DOWNLOAD_FETCHES, default 3). */
  readonly fetches: number;
  /** All fetches of one file together, ms (MEDIAFLOW_DOWNLOAD_DEADLINE_S, default 1800 s). */
  readonly deadlineMs: number;
  /** Slowest average rate over each window, bytes/s (MEDIAFLOW_DOWNLOAD_MIN_RATE, default 16384). */
  readonly minBytesPerSecond: number;
  /** The window the rate is measured over, ms (MEDIAFLOW_DOWNLOAD_RATE_WINDOW_S, default 20 s). */
  readonly windowMs: number;
}

export const DEFAULT_BOUNDS: DownloadBounds = {
  fetches: 3,
  deadlineMs: 1_800_000,
  minBytesPerSecond: 16_384,
  windowMs: 20_000,
};

const SETTINGS = [
  ['fetches', 'MEDIAFLOW_DOWNLOAD_FETCHES', 1],
  ['deadlineMs', 'MEDIAFLOW_DOWNLOAD_DEADLINE_S', 1000],
  ['minBytesPerSecond', 'MEDIAFLOW_DOWNLOAD_MIN_RATE', 1],
  ['windowMs', 'MEDIAFLOW_DOWNLOAD_RATE_WINDOW_S', 1000],
] as const;

export function downloadBounds(env: NodeJS.ProcessEnv = process.env): DownloadBounds {
  const bounds: Record<keyof DownloadBounds, number> = { ...DEFAULT_BOUNDS };
  for (const [field, name, unit] of SETTINGS) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = Number(raw);
    // A rate of 0 turns the rate check off; every other setting must be positive.
    const least = field === 'minBytesPerSecond' ? 0 : Number.MIN_VALUE;
    if (!Number.isFinite(value) || value < least || (field === 'fetches' && !Number.isInteger(value))) {
      throw new ConfigurationError(`${name} must be a number above 0, got ${JSON.stringify(raw)}`);
    }
    bounds[field] = Math.round(value * unit);
  }
  return bounds;
}

/** One fetch's body went wrong in a way another fetch may not repeat: short, or stalled. */
export class BadBody extends Error {
  override readonly name = 'BadBody';
  readonly fault: 'short' | 'stalled';
  constructor(fault: 'short' | 'stalled', message: string) {
    super(message);
    this.fault = fault;
  }
}

/** The codes the last bad body ends its job with (activities/failure-kind.ts names their kinds). */
export const BAD_BODY_CODES = { short: 'DOWNLOAD_SHORT', stalled: 'DOWNLOAD_STALLED' } as const;

/** The bounded fetches of `where` (a redacted link) ran out: final, with every fetch's fault said once. */
export function fetchesExhausted(where: string, faults: readonly BadBody[]): ServiceError {
  const last = faults.at(-1)!;
  const said = faults.map((fault, n) => `fetch ${n + 1} ${fault.message}`).join('; ');
  const count = `${faults.length} fetch${faults.length === 1 ? '' : 'es'}`;
  return new ServiceError({
    message: `download of ${where} gave up after ${count}: ${said}`,
    status: null,
    type: 'download_error',
    code: BAD_BODY_CODES[last.fault],
    retryable: false,
  });
}

/**
 * Watches one body: destroys it with a stalled BadBody when a window passes with less than the
 * minimum rate, or when the deadline (epoch ms) passes. `arrived` is called with each chunk's size.
 */
export function watchBody(
  body: { destroy(error: Error): unknown },
  bounds: DownloadBounds,
  deadline: number,
): { arrived(bytes: number): void; stop(): void; total(): number } {
  let total = 0;
  let atWindowStart = 0;
  const stall = (why: string) => body.destroy(new BadBody('stalled', `stalled: ${why}`));
  const least = (bounds.minBytesPerSecond * bounds.windowMs) / 1000;
  const window = setInterval(() => {
    const got = total - atWindowStart;
    atWindowStart = total;
    if (bounds.minBytesPerSecond > 0 && got < least) {
      stall(
        `${got} bytes in ${bounds.windowMs / 1000} s, under the minimum ${bounds.minBytesPerSecond} bytes/s`,
      );
    }
  }, bounds.windowMs);
  const late = setTimeout(
    () => stall(`${total} bytes when the download deadline (${bounds.deadlineMs / 1000} s) passed`),
    Math.max(0, deadline - Date.now()),
  );
  return {
    arrived: (bytes) => {
      total += bytes;
    },
    stop: () => {
      clearInterval(window);
      clearTimeout(late);
    },
    total: () => total,
  };
}
