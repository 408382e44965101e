/**
 * Fault injection: each kind of fault draws from its own seeded stream, so the sequence of
 * injected failures is reproducible and independent of the other knobs.
 */
import { checkFaults, type Faults } from './options.ts';
import { type Random, streamFor } from './random.ts';

type RateKnob =
  | 'failRate'
  | 'serverErrorRate'
  | 'dropConnectionRate'
  | 'truncateDownloadRate'
  | 'refusePromptRate'
  | 'flagOutputRate'
  | 'trickleDownloadRate';

export class FaultInjector {
  private current: Faults;
  private readonly streams: Record<RateKnob, Random>;
  private readonly seed: number;

  constructor(faults: Faults, seed: number) {
    this.current = faults;
    this.seed = seed;
    this.streams = {
      failRate: streamFor(seed, 'fail'),
      serverErrorRate: streamFor(seed, 'server-error'),
      dropConnectionRate: streamFor(seed, 'drop-connection'),
      truncateDownloadRate: streamFor(seed, 'truncate-download'),
      refusePromptRate: streamFor(seed, 'refuse-prompt'),
      flagOutputRate: streamFor(seed, 'flag-output'),
      trickleDownloadRate: streamFor(seed, 'trickle-download'),
    };
  }

  get settings(): Faults {
    return { ...this.current };
  }

  set(changes: Partial<Faults>): void {
    this.current = checkFaults({ ...this.current, ...changes });
  }

  /** True when this occurrence should be hit. A knob at 0 draws nothing, so it costs nothing. */
  hit(knob: RateKnob): boolean {
    const rate = this.current[knob];
    return rate > 0 && this.streams[knob]() < rate;
  }

  /** A full outage (every /v1 request 503): streams open through it break too (routes/stream.ts). */
  get down(): boolean {
    return this.current.serverErrorRate >= 1;
  }

  get slowDownloadMs(): number {
    return this.current.slowDownloadMs;
  }

  get trickleByteEveryMs(): number {
    return this.current.trickleByteEveryMs;
  }

  get linkTtlMs(): number {
    return this.current.linkTtlMs;
  }

  /**
   * The TTL of one prediction's links: `linkTtlMs` for the `linkTtlShare` of predictions drawn
   * by id (not from a stream: every GET of the same prediction must answer alike), else 0.
   */
  linkTtlFor(predictionId: number): number {
    const { linkTtlMs, linkTtlShare } = this.current;
    if (linkTtlMs === 0 || linkTtlShare >= 1) return linkTtlMs;
    return streamFor(this.seed, `link-ttl:${predictionId}`)() < linkTtlShare ? linkTtlMs : 0;
  }
}
