/**
 * What a `mediaflow worker` process needs beside its workers to run under a supervisor
 * (docker-compose.yml, Kubernetes, systemd): a drain on SIGTERM, a health endpoint to probe, and
 * Temporal's SDK metrics for Prometheus, off unless asked for.
 *
 * The drain is the SDK's own (Runtime's shutdown signals): on SIGTERM or SIGINT each worker stops
 * polling, lets the activities it runs finish for the grace period, then cancels them; ours do not
 * stop on cancel (a prediction goes on at the service), so the force period after it is when the
 * worker lets go: run() fails with GracefulShutdownPeriodExpiredError and the activities left
 * hand over, retried on another worker once their heartbeat stops (their claims keep the
 * prediction from being paid twice).
 */
import { DefaultLogger, GracefulShutdownPeriodExpiredError, Runtime, type Worker } from '@temporalio/worker';
import Fastify, { type FastifyInstance } from 'fastify';

/** How long a draining worker lets running activities finish (`--shutdown-grace`). */
export const DEFAULT_SHUTDOWN_GRACE_S = 30;
/** After the grace period, how long cancelled activities get before the worker lets go of them. */
export const SHUTDOWN_FORCE_AFTER_GRACE_MS = 5_000;

export interface WorkerProcessOptions {
  /** `host:port` for Prometheus' `/metrics` (the SDK's exporter); absent: no metrics. */
  readonly metricsAddress?: string;
}

/**
 * Installs the SDK runtime for a worker process: call before any connection is made. Shutdown
 * signals stay the SDK's defaults (SIGINT, SIGTERM, SIGQUIT, SIGUSR2), which start the drain.
 */
export function installWorkerRuntime(options: WorkerProcessOptions): void {
  Runtime.install({
    logger: new DefaultLogger('INFO'),
    ...(options.metricsAddress
      ? { telemetryOptions: { metrics: { prometheus: { bindAddress: options.metricsAddress } } } }
      : {}),
  });
}

/** The SDK's shutdown options for a grace period in seconds (createMediaflowWorker's `shutdown`). */
export function shutdownTimes(graceSeconds: number): {
  shutdownGraceTime: number;
  shutdownForceTime: number;
} {
  const grace = graceSeconds * 1_000;
  return { shutdownGraceTime: grace, shutdownForceTime: grace + SHUTDOWN_FORCE_AFTER_GRACE_MS };
}

/** Healthy while every worker polls: a draining or failed worker answers 503, so traffic moves on. */
export function healthOf(workers: readonly Pick<Worker, 'getState'>[]): { ok: boolean; states: string[] } {
  const states = workers.map((worker) => worker.getState());
  return { ok: states.every((state) => state === 'RUNNING'), states };
}

/** `GET /health` on `host:port` (port 0: any free one): 200 or 503 with the workers' states. */
export async function startHealthEndpoint(
  workers: readonly Pick<Worker, 'getState'>[],
  port: number,
  host = '0.0.0.0',
): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.get('/health', async (_request, reply) => {
    const { ok, states } = healthOf(workers);
    return reply.code(ok ? 200 : 503).send({ ok, states });
  });
  await app.listen({ port, host });
  return app;
}

/**
 * Runs the workers until a signal drains them. A drain whose force period ran out still ends the
 * process normally: the activities it let go of are handed over, which is what the drain is for.
 */
export async function runUntilDrained(workers: readonly Worker[]): Promise<void> {
  try {
    await Promise.all(workers.map((worker) => worker.run()));
  } catch (error) {
    if (!(error instanceof GracefulShutdownPeriodExpiredError)) throw error;
    console.error(`mediaflow worker: ${error.message}; the activities still running are handed over`);
  }
}
