/**
 * What making derivatives needs on a worker, built once per worker (worker/create-worker.ts):
 * a bound on the derive work running at once, so CPU-heavy crops and cuts never starve the
 * campaign's creates and downloads of the event loop's time and the machine's cores, and the
 * tools' versions, read once, which every derivative's record names. sharp (libvips) is loaded
 * on first use only: a worker or a `run` with no derive step never loads them.
 */
import { availableParallelism } from 'node:os';
import pLimit, { type LimitFunction } from 'p-limit';
import { type VideoTools, videoTools, videoToolVersion } from '../../derive/video/tools.ts';

export interface DeriveDeps {
  readonly limit: LimitFunction;
  /**
   * Jobs whose parent is read and held for their derivatives at once (parent-in-hand.ts): twice
   * the derive work's bound, so one parent's reads and writes overlap another's cut.
   */
  readonly parents: LimitFunction;
  readonly video: VideoTools;
  /**
   * ffmpeg's threads per clip: the cores shared among the clips made at once. libvips keeps its
   * own default (a thread per core for each image): one thread per image measured slower
   * (derive-2k, docs/benchmarks.md), its decoders leave cores idle.
   */
  readonly threads: number;
  /** The tools that make a still's derivative, or a clip's (ffmpeg, then sharp after a `frame`). */
  readonly tools: (kind: 'image' | 'video') => Promise<string>;
}

/** `MEDIAFLOW_DERIVE_CONCURRENCY`: derivatives made at once on this worker; default its cores. */
export function deriveDeps(env: NodeJS.ProcessEnv = process.env): DeriveDeps {
  const cores = availableParallelism();
  const asked = Number(env.MEDIAFLOW_DERIVE_CONCURRENCY);
  const concurrency = Number.isInteger(asked) && asked > 0 ? asked : cores;
  const video = videoTools(env);
  let ffmpeg: Promise<string> | undefined;
  return {
    limit: pLimit(concurrency),
    parents: pLimit(concurrency * 2),
    video,
    threads: Math.max(1, Math.floor(cores / concurrency)),
    async tools(kind) {
      const { imageToolVersion } = await import('../../derive/image/tool-version.ts');
      if (kind === 'image') return imageToolVersion();
      ffmpeg ??= videoToolVersion(video);
      return `${await ffmpeg}; ${imageToolVersion()}`;
    },
  };
}
