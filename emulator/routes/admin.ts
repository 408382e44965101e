/**
 * The emulator's own controls, outside /v1 and open on loopback only (no key): the ledger that
 * benchmarks and drills read, and the fault, limit and idempotency knobs of a running emulator.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { EmulatorContext } from '../context.ts';
import { parseWith } from '../http/validate.ts';

const share = z.number().min(0).max(1).optional();
export const FaultsBody = z.strictObject({
  failRate: share,
  serverErrorRate: share,
  dropConnectionRate: share,
  slowDownloadMs: z.number().int().min(0).optional(),
  truncateDownloadRate: share,
  refusePromptRate: share,
  flagOutputRate: share,
  trickleDownloadRate: share,
  trickleByteEveryMs: z.number().int().min(1).optional(),
  linkTtlMs: z.number().int().min(0).optional(),
  linkTtlShare: share,
});
const perMinute = z.number().int().min(1).optional();
export const LimitsBody = z.strictObject({
  createsPerMinute: perMinute,
  requestsPerMinute: perMinute,
  maxInFlight: perMinute,
});
export const IdempotencyBody = z.strictObject({ ignore: z.boolean() });

export function adminRoutes(app: FastifyInstance, context: EmulatorContext): void {
  // The guard refuses any other peer (http/guard.ts), before a body is even parsed.
  const loopback = { config: { access: 'loopback' as const } };
  app.get('/_emulator/ledger', loopback, async () => {
    return context.ledger.snapshot();
  });
  app.post('/_emulator/faults', loopback, async (request) => {
    context.faults.set(parseWith(FaultsBody, request.body));
    return context.faults.settings;
  });
  app.post('/_emulator/limits', loopback, async (request) => {
    context.limiter.set(parseWith(LimitsBody, request.body));
    return context.limiter.settings;
  });
  app.post('/_emulator/idempotency', loopback, async (request) => {
    context.ignoreIdempotency = parseWith(IdempotencyBody, request.body).ignore;
    return { ignore: context.ignoreIdempotency };
  });
}
