/**
 * Assembles the fastify server: protocol (JSON in, part 7 errors out, ledger), the guard (faults,
 * auth, rate limits), one route group per endpoint group and a 405 for every other method. No request logging unless asked:
 * the emulator must never be the bottleneck of a benchmark.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { installGuard } from './auth/guard.ts';
import type { EmulatorContext } from './context.ts';
import { allowedHostNames, installHostCheck } from './http/host-check.ts';
import { recordRoutes } from './http/methods.ts';
import { installProtocol } from './http/protocol.ts';
import { accountRoutes } from './routes/account.ts';
import { adminRoutes } from './routes/admin.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { batchRoutes } from './routes/batch.ts';
import { cdnRoutes } from './routes/cdn.ts';
import { fileRoutes } from './routes/files.ts';
import { modelRoutes } from './routes/models.ts';
import { predictionRoutes } from './routes/predictions.ts';
import { streamRoutes } from './routes/stream.ts';
import { utilityRoutes } from './routes/utilities.ts';
import { webhookRoutes } from './routes/webhooks.ts';

/** Every body but a file upload (see routes/files.ts). */
const BODY_LIMIT = 1024 * 1024;

const ROUTE_GROUPS = [
  predictionRoutes,
  streamRoutes,
  batchRoutes,
  modelRoutes,
  fileRoutes,
  webhookRoutes,
  accountRoutes,
  apiKeyRoutes,
  utilityRoutes,
  adminRoutes,
  cdnRoutes,
];

export function buildServer(context: EmulatorContext): FastifyInstance {
  const app = Fastify({
    logger: context.options.logger,
    bodyLimit: BODY_LIMIT,
    // SSE streams and keep-alive sockets must not hold close() open.
    forceCloseConnections: true,
    // Ids such as `owner%2Fmodel` arrive decoded; long ids are refused by the routes, not here.
    routerOptions: { maxParamLength: 500 },
  });
  installProtocol(app, context.ledger);
  // Before the guard: a refused Host costs no fault draw, no key check and no rate-limit token.
  installHostCheck(app, allowedHostNames(context.options.allowedHosts));
  installGuard(app, context);
  const addMethodNotAllowed = recordRoutes(app);
  for (const register of ROUTE_GROUPS) register(app, context);
  addMethodNotAllowed();
  return app;
}
