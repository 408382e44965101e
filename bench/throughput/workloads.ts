/**
 * The three throughput workloads of issue 5: the campaign spec, the emulator's settings (fixed
 * latency, no jitter, limits set explicitly) and the physical bound each run is held to.
 *
 * With N jobs, latency L, C predictions in flight and R creates/s:
 *   T_min = max(N/R, N·L/C) + L
 * For a chain (docs/benchmarks.md derives it): every prediction, image or video, takes one create
 * token and holds one in-flight slot for its latency, so with N_i images and N_v videos
 *   T_dag = max((N_i + N_v)/R, (N_i·L_i + N_v·L_v)/C) + L_v
 * (the last prediction to finish is a video, since every video waits for an image).
 */
import type { EmulatorOptions } from '../../emulator/index.ts';

export interface Workload {
  readonly name: string;
  readonly description: string;
  readonly jobs: number;
  /** Campaign spec; `{{OUT}}` is replaced by the output folder. */
  readonly spec: string;
  readonly emulator: EmulatorOptions;
  /** The physical bound in seconds. */
  readonly boundSeconds: number;
  readonly boundFormula: string;
  readonly goals: Goals;
  /** The same workload at another size (`npm run bench -- <name> --jobs N`), to profile it small. */
  readonly resize?: (jobs: number) => Workload;
  /** Run the baseline after mediaflow even without a goal over it (to report beside it). */
  readonly withBaseline?: true;
}

export interface Goals {
  /** wall ≤ factor × bound */
  readonly wallOverBound: number;
  /** mediaflow wall ≤ factor × baseline wall; without it the baseline is not run. */
  readonly wallOverBaseline?: number;
  readonly requestsPerJob: number;
  readonly rateLimitedShare: number;
  /** Worker peak RSS in MB of 10⁶ bytes: the issues' unit, the stricter reading of "300 MB". */
  readonly peakRssMb?: number;
  readonly maxEventsPerRun?: number;
  /** Billable Temporal actions per job (history-profile.ts counts them). */
  readonly actionsPerJob?: number;
  /** Worker CPU milliseconds per job. */
  readonly workerCpuMsPerJob?: number;
  /** History events per job, every run together. */
  readonly eventsPerJob?: number;
}

const COMMON_GOALS = { wallOverBaseline: 1.1, requestsPerJob: 3, rateLimitedShare: 0.01 } as const;

/** What a result file records of its workload (everything but the spec and the goals). */
export function workloadSummary(workload: Workload) {
  const { description, jobs, emulator, boundSeconds, boundFormula } = workload;
  return { description, jobs, emulator, boundSeconds, boundFormula };
}

/** Limits of the issue: R creates/s, C in flight; other requests never bind. */
export function emulatorFor(
  createsPerSecond: number,
  maxInFlight: number,
  latencyMs: EmulatorOptions['latencyMs'],
) {
  return {
    latencyMs,
    jitter: false,
    timeScale: 1,
    credits: '100000.00',
    limits: { createsPerMinute: 60 * createsPerSecond, requestsPerMinute: 10_000_000, maxInFlight },
  } satisfies EmulatorOptions;
}

/** `count` distinct values: a matrix dimension. */
function values(prefix: string, count: number): string {
  return `[${Array.from({ length: count }, (_, i) => `${prefix}${i}`).join(', ')}]`;
}

export function imageSweep(name: string, rows: number, columns: number, concurrency: number): string {
  return `version: 1
campaign: ${name}
budget: { max_usd: 10000 }
concurrency: ${concurrency}
output: { dir: "{{OUT}}" }
steps:
  - id: still
    model: I4
    retries: 0
    matrix: { subject: ${values('s', rows)}, style: ${values('t', columns)} }
    input: { prompt: "bench {{subject}} in style {{style}}", aspect_ratio: "1:1" }
`;
}

export function tMin(jobs: number, latencyS: number, inFlight: number, perSecond: number): number {
  return Math.max(jobs / perSecond, (jobs * latencyS) / inFlight) + latencyS;
}

/**
 * Issue 22's saturation workloads: the service allows more than a typical account, so the engine's
 * own cost per job binds, not the service. L = 2 s fixed; C is both `concurrency:` and the
 * emulator's in-flight limit. `jobs` is configurable so the profile can be taken small: the bound
 * and the spec follow it (rows × 100 columns, so sizes are multiples of 100).
 */
function saturation(name: string, jobs: number, inFlight: number, perSecond: number, full: Goals): Workload {
  const rows = Math.max(1, Math.round(jobs / 100));
  const size = rows * 100;
  const fullSize = size === 10_000;
  return {
    name,
    description: `${size.toLocaleString('en-US')} I4 jobs, L = 2 s, C = ${inFlight}, R = ${perSecond}/s`,
    jobs: size,
    spec: imageSweep(`bench-sat-${inFlight}`, rows, 100, inFlight),
    emulator: emulatorFor(perSecond, inFlight, 2_000),
    boundSeconds: tMin(size, 2, inFlight, perSecond),
    boundFormula: `max(${size}/${perSecond}, ${size}·2/${inFlight}) + 2`,
    // Smaller runs keep the goals per job; RSS grows with the campaign and is judged at full size.
    goals: fullSize ? full : { ...full, peakRssMb: undefined },
    resize: (n) => saturation(name, n, inFlight, perSecond, full),
    withBaseline: true,
  };
}

const SATURATION_GOALS: Goals = {
  ...COMMON_GOALS,
  wallOverBound: 1.15,
  peakRssMb: 300,
  workerCpuMsPerJob: 5,
  eventsPerJob: 0.5,
};

export const WORKLOADS: Readonly<Record<string, Workload>> = {
  'throughput-2k': {
    name: 'throughput-2k',
    description: '2,000 I4 jobs, L = 1 s, C = 50, R = 50/s',
    jobs: 2_000,
    spec: imageSweep('bench-2k', 40, 50, 50),
    emulator: emulatorFor(50, 50, 1_000),
    boundSeconds: tMin(2_000, 1, 50, 50),
    boundFormula: 'max(2000/50, 2000·1/50) + 1',
    goals: { ...COMMON_GOALS, wallOverBound: 1.15 },
  },
  'throughput-10k': {
    name: 'throughput-10k',
    description: '10,000 I4 jobs, L = 1 s, C = 200, R = 100/s',
    jobs: 10_000,
    spec: imageSweep('bench-10k', 100, 100, 200),
    emulator: emulatorFor(100, 200, 1_000),
    boundSeconds: tMin(10_000, 1, 200, 100),
    boundFormula: 'max(10000/100, 10000·1/200) + 1',
    goals: { ...COMMON_GOALS, wallOverBound: 1.25, peakRssMb: 400, maxEventsPerRun: 10_000 },
  },
  // Issue 13's scale goal: no baseline (a hand-written script is not the point at this size).
  'throughput-100k': {
    name: 'throughput-100k',
    description: '100,000 I4 jobs, L = 1 s, C = 200, R = 100/s',
    jobs: 100_000,
    spec: imageSweep('bench-100k', 250, 400, 200),
    emulator: emulatorFor(100, 200, 1_000),
    boundSeconds: tMin(100_000, 1, 200, 100),
    boundFormula: 'max(100000/100, 100000·1/200) + 1',
    goals: {
      requestsPerJob: 3,
      rateLimitedShare: 0.01,
      wallOverBound: 1.03,
      peakRssMb: 300,
      maxEventsPerRun: 10_000,
      actionsPerJob: 2,
    },
  },
  'chain-1k': {
    name: 'chain-1k',
    description: '500 I1 images each feeding a V4 video, L = 1 s / 3 s, C = 50, R = 50/s',
    jobs: 1_000,
    spec: `version: 1
campaign: bench-chain
budget: { max_usd: 10000 }
concurrency: 50
output: { dir: "{{OUT}}" }
steps:
  - id: still
    model: I1
    retries: 0
    matrix: { subject: ${values('s', 20)}, style: ${values('t', 25)} }
    input: { prompt: "bench {{subject}} in style {{style}}", aspect_ratio: "16:9" }
  - id: clip
    model: V4
    retries: 0
    from: still
    input: { prompt: "slow orbit around {{subject}}", start_image: "{{from.output}}", mode: standard }
`,
    emulator: emulatorFor(50, 50, { I1: 1_000, V4: 3_000 }),
    boundSeconds: Math.max(1_000 / 50, (500 * 1 + 500 * 3) / 50) + 3,
    boundFormula: 'max(1000/50, (500·1 + 500·3)/50) + 3',
    goals: { ...COMMON_GOALS, wallOverBound: 1.2 },
  },
  'saturation-10k': saturation('saturation-10k', 10_000, 400, 200, SATURATION_GOALS),
  // Must finish and report; its goals are the wall and naming which of worker and server binds.
  'saturation-10k-wide': saturation('saturation-10k-wide', 10_000, 1_000, 500, {
    requestsPerJob: 3,
    rateLimitedShare: 0.01,
    wallOverBound: 1.5,
  }),
};
