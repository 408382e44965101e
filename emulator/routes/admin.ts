/**
 * The emulator's own controls, outside /v1 and open on loopback only (no key): the ledger that
 * benchmarks and drills read, and the fault, limit and idempotency knobs of a running emulator.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { EmulatorContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { parseWith } from '../http/validate.ts';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

const share = z.number().min(0).max(1).optional();
export const FaultsBody = z.strictObject({
  failRate: share,
  serverErrorRate: share,
  dropConnectionRate: share,
  slowDownloadMs: z.number().int().min(0).optional(),
  truncateDownloadRate: share,
});
const perMinute = z.number().int().min(1).optional();
export const LimitsBody = z.strictObject({
  createsPerMinute: perMinute,
  requestsPerMinute: perMinute,
  maxInFlight: perMinute,
});
export const IdempotencyBody = z.strictObject({ ignore: z.boolean() });

function loopbackOnly(request: FastifyRequest): void {
  if (!LOOPBACK.has(request.socket.remoteAddress ?? '')) {
    throw new ApiError('NOT_FOUND', 'the emulator controls are served on loopback only');
  }
}

export function adminRoutes(app: FastifyInstance, context: EmulatorContext): void {
  app.get('/_emulator/ledger', async (request) => {
    loopbackOnly(request);
    return context.ledger.snapshot();
  });
  app.post('/_emulator/faults', async (request) => {
    loopbackOnly(request);
    context.faults.set(parseWith(FaultsBody, request.body));
    return context.faults.settings;
  });
  app.post('/_emulator/limits', async (request) => {
    loopbackOnly(request);
    context.limiter.set(parseWith(LimitsBody, request.body));
    return context.limiter.settings;
  });
  app.post('/_emulator/idempotency', async (request) => {
    loopbackOnly(request);
    context.ignoreIdempotency = parseWith(IdempotencyBody, request.body).ignore;
    return { ignore: context.ignoreIdempotency };
  });
}
