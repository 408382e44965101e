/**
 * Everything that tunes the emulator, with the defaults a user gets from `mediaflow emulator`.
 * Types are derived from the defaults so a new knob is declared once.
 */
import { randomBytes } from 'node:crypto';
import type { ModelLabel } from '../api/catalogue/index.ts';

/** Near real services: about 600 creates/min, 3,000 other requests/min, 50 predictions in flight. */
export const DEFAULT_LIMITS = { createsPerMinute: 600, requestsPerMinute: 3000, maxInFlight: 50 };
export type Limits = typeof DEFAULT_LIMITS;

/** Shares are in [0, 1]; all off by default. */
export const DEFAULT_FAULTS = {
  /** Predictions that end `failed` (refunded). */
  failRate: 0,
  /** /v1 requests answered 503 before any work is done. */
  serverErrorRate: 0,
  /** /v1 requests whose connection is dropped AFTER the work is done (the "maybe created" case). */
  dropConnectionRate: 0,
  /** Pause in the middle of every CDN download. */
  slowDownloadMs: 0,
  /** CDN downloads cut short: Content-Length promises more than is sent. */
  truncateDownloadRate: 0,
  /** Creates refused by the content policy (400 CONTENT_REFUSED, nothing charged). */
  refusePromptRate: 0,
  /** Predictions whose output is flagged after processing (failed OUTPUT_FLAGGED, charged). */
  flagOutputRate: 0,
  /** CDN downloads that trickle: one byte every `trickleByteEveryMs`, never finishing in time. */
  trickleDownloadRate: 0,
  trickleByteEveryMs: 2_000,
  /**
   * Output links carry `?expires=` this long after they are issued, and the CDN answers 410 past
   * it; a GET of the prediction (or its stream) issues fresh ones. 0: links never expire.
   * Prompts with the markers of media/links.ts expire or lose their output deterministically.
   */
  linkTtlMs: 0,
  /**
   * Share of predictions whose links carry `linkTtlMs` (1: all of them). Drawn once per
   * prediction from the seed, so every link issued for one prediction expires alike.
   */
  linkTtlShare: 1,
};
export type Faults = typeof DEFAULT_FAULTS;

export interface EmulatorOptions {
  /** 0 = any free port (tests). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: MEDIAFLOW_API_KEY, else a generated dev key. */
  apiKey?: string;
  /** Multiplies latencies; 0 = instant (tests). Default 1. */
  timeScale?: number;
  /** Overrides the built-in model latencies (benchmarks use a fixed value). */
  latencyMs?: number | Partial<Record<ModelLabel, number>>;
  /** Default true; false = exact latency (benchmarks). */
  jitter?: boolean;
  /** Starting balance, decimal string. Default "1000.00". */
  credits?: string;
  limits?: Partial<Limits>;
  faults?: Partial<Faults>;
  /** Drills: treat every create as new, so duplicates can be counted. */
  ignoreIdempotency?: boolean;
  /** Seeds fault and jitter randomness, for reproducible runs. */
  seed?: number;
  /** Fastify request logging; off by default so logging never limits throughput. */
  logger?: boolean;
  /**
   * Keep the emulator's state in this JSON file (and uploads in `<stateFile>.files/`), restored at
   * start: the embedded stack's emulator uses it so a restart loses no prediction. Absent (tests,
   * benchmarks): everything stays in memory. docs/service-assumptions.md, "Persistence".
   */
  stateFile?: string;
  /**
   * Host names the emulator answers to besides loopback names, IP literals and the machine's name
   * (emulator/http/host-check.ts). Default: MEDIAFLOW_EMULATOR_HOSTS, comma-separated.
   */
  allowedHosts?: readonly string[];
  /**
   * Sign outputs as a provider does: a C2PA manifest of the emulator's own (its test certificate,
   * made by `npm run setup`), `trainedAlgorithmicMedia`. Default true (unsigned when there is no
   * certificate); false, or MEDIAFLOW_EMULATOR_SIGN=0: a provider that signs nothing.
   */
  signOutputs?: boolean;
}

export interface ResolvedOptions {
  port: number;
  host: string;
  apiKey: string;
  timeScale: number;
  latencyMs: EmulatorOptions['latencyMs'];
  jitter: boolean;
  credits: string;
  limits: Limits;
  faults: Faults;
  ignoreIdempotency: boolean;
  seed: number;
  logger: boolean;
  stateFile: string | undefined;
  allowedHosts: readonly string[];
  signOutputs: boolean;
}

export function generateApiKey(): string {
  return `mfk_${randomBytes(24).toString('hex')}`;
}

export function resolveOptions(opts: EmulatorOptions, env: NodeJS.ProcessEnv = process.env): ResolvedOptions {
  const timeScale = opts.timeScale ?? 1;
  if (!(timeScale >= 0)) throw new RangeError(`timeScale must be a number ≥ 0, not ${timeScale}`);
  return {
    port: opts.port ?? 0,
    host: opts.host ?? '127.0.0.1',
    apiKey: opts.apiKey ?? env.MEDIAFLOW_API_KEY ?? generateApiKey(),
    timeScale,
    latencyMs: opts.latencyMs,
    jitter: opts.jitter ?? true,
    credits: opts.credits ?? '1000.00',
    limits: checkLimits({ ...DEFAULT_LIMITS, ...opts.limits }),
    faults: checkFaults({ ...DEFAULT_FAULTS, ...opts.faults }),
    ignoreIdempotency: opts.ignoreIdempotency ?? false,
    seed: opts.seed ?? randomBytes(4).readUInt32LE(0),
    logger: opts.logger ?? false,
    stateFile: opts.stateFile,
    allowedHosts:
      opts.allowedHosts ?? (env.MEDIAFLOW_EMULATOR_HOSTS ?? '').split(',').filter((name) => name.trim()),
    signOutputs: opts.signOutputs ?? env.MEDIAFLOW_EMULATOR_SIGN !== '0',
  };
}

export function checkLimits(limits: Limits): Limits {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`${name} must be an integer ≥ 1, not ${value}`);
  }
  return limits;
}

export function checkFaults(faults: Faults): Faults {
  for (const [name, value] of Object.entries(faults)) {
    // Rates are shares; durations (`…Ms`) any whole number of milliseconds.
    const max = name.endsWith('Ms') ? Number.MAX_SAFE_INTEGER : 1;
    if (!(value >= 0 && value <= max))
      throw new RangeError(`${name} must be between 0 and ${max}, not ${value}`);
  }
  return faults;
}
