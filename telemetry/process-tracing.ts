/**
 * This process's tracing, started at most once: by the CLI's entry before a command runs, so
 * `run`, `worker` and every other command trace alike, and by a worker made in any other process.
 * Without an OTLP endpoint it is null and the SDK is never imported: the instrumented code loads
 * @opentelemetry/api alone, whose spans are no-ops until an SDK is registered.
 */
import type { Tracing } from './sdk.ts';
import { tracingRequested } from './settings.ts';

let started: Promise<Tracing | null> | undefined;

/** Starts tracing when the environment asks for it; the same answer on every call. */
export function processTracing(env: NodeJS.ProcessEnv = process.env): Promise<Tracing | null> {
  started ??= tracingRequested(env)
    ? import('./sdk.ts').then(({ startTracing }) => startTracing(env))
    : Promise.resolve(null);
  return started;
}
