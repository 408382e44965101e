/** Account: who, how many credits, what was spent, and the caller's rate limits. */
import type { FastifyInstance } from 'fastify';
import { keyOf } from '../auth/guard.ts';
import type { EmulatorContext } from '../context.ts';

export function accountRoutes(app: FastifyInstance, context: EmulatorContext): void {
  const { account } = context;
  app.get('/v1/account', async () => ({
    id: account.id,
    name: 'Emulator account',
    created_at: account.createdAt,
  }));
  app.get('/v1/account/balance', async () => account.balanceToWire());
  app.get('/v1/account/usage', async () => account.usageToWire((label) => context.paths.idOf(label)));
  app.get('/v1/account/rate-limits', async (request) => context.limiter.report(keyOf(request).id));
}
