/**
 * Signs one file, off the worker's main thread. The SDK signs with a local key synchronously: on the
 * main thread, which also runs the Temporal SDK's bridge and every activity, each file held the
 * event loop for 5-15 ms, and at a hundred outputs a second every create, download and heartbeat
 * waited behind the signatures (docs/benchmarks.md, "Signing outputs"). A small pool of threads
 * (piscina: Node's own worker threads, kept warm) signs instead, on the cores' spare time.
 *
 * A remote signer (a KMS, an HSM) signs here: its callback lives on this thread, and its signature
 * is a request, which does not hold the loop. So does a Node that cannot load TypeScript in a
 * thread (before 22.18, where bin/mediaflow.js runs through tsx).
 *
 * The local key crosses to the thread in memory, as any argument does, never through a log, argv
 * or Temporal.
 */
import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import { signHere } from './sign-here.ts';
import type { SignRequest } from './sign-request.ts';
import { bufferOf, type SigningTask } from './sign-thread.ts';
import type { SigningKey } from './signing-key.ts';

/**
 * A thread per core but one (the main thread keeps its own), at most four: a still takes about 5 ms
 * and a clip 15, so four threads sign several hundred files a second, more than a service serves.
 */
const THREADS = Math.min(4, Math.max(1, availableParallelism() - 1));
/** A thread past the first ends after this long idle; the first stays (idle, it keeps no process alive). */
const IDLE_MS = 30_000;

let pool: Promise<Piscina> | undefined;

export async function signFile(key: SigningKey, request: SignRequest): Promise<Buffer> {
  if (key.kind === 'remote' || !process.features.typescript) return signHere(key, request);
  const task: SigningTask = { key, request };
  const signed: unknown = await (await signingThreads()).run(task);
  if (!(signed instanceof Uint8Array)) throw new Error(`a signing thread returned no ${request.format}`);
  return bufferOf(signed);
}

/** Started on the first file signed: a command that never signs never starts a thread. */
function signingThreads(): Promise<Piscina> {
  pool ??= import('piscina').then(
    ({ Piscina }) =>
      new Piscina({
        filename: new URL('./sign-thread.ts', import.meta.url).href,
        minThreads: 1,
        maxThreads: THREADS,
        idleTimeout: IDLE_MS,
        concurrentTasksPerWorker: 4,
      }),
  );
  return pool;
}
