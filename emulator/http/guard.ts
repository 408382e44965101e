/**
 * What happens to every /v1 request before its handler, in this order:
 * 1. the injected 5xx fault (before any work, so nothing is created);
 * 2. authentication (`Authorization: Bearer <key>`; health and the OpenAPI document are open);
 * 3. the rate limit of its kind: creates take one token per prediction asked for (a batch takes
 *    one per item, once its body is parsed), every other request one request token.
 * After the handler, the injected dropped-connection fault discards the reply of work done.
 * All of it is O(1) per request.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyRecord } from '../auth/keys.ts';
import type { EmulatorContext } from '../context.ts';
import { ApiError } from './errors.ts';

export type LimitClass = 'create' | 'batch' | 'request' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How the route is authenticated and rate limited; default 'request'. */
    limit?: LimitClass;
  }
  interface FastifyRequest {
    apiKey: KeyRecord | null;
  }
}

/** The key that authenticated this request (every guarded route has one). */
export function keyOf(request: FastifyRequest): KeyRecord {
  if (!request.apiKey) throw new ApiError('UNAUTHENTICATED', 'this request is not authenticated');
  return request.apiKey;
}

function limitClass(request: FastifyRequest): LimitClass | undefined {
  // Unknown routes get their 404 without asking for a key first.
  return request.routeOptions.url === undefined
    ? undefined
    : (request.routeOptions.config.limit ?? 'request');
}

function authenticate(context: EmulatorContext, request: FastifyRequest): KeyRecord {
  const header = request.headers.authorization;
  if (!header) {
    throw new ApiError('UNAUTHENTICATED', 'send the API key as "Authorization: Bearer <key>"');
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const key = match ? context.keys.authenticate(match[1]!) : undefined;
  // Never echo the key: it may be a real secret sent to the wrong place.
  if (!key) throw new ApiError('INVALID_API_KEY', 'the API key is unknown, deleted or rotated');
  return key;
}

function applyLimit(
  context: EmulatorContext,
  reply: FastifyReply,
  keyId: string,
  kind: 'create' | 'request',
  count: number,
) {
  reply.headers(context.limiter.take(keyId, kind, count));
}

export function installGuard(app: FastifyInstance, context: EmulatorContext): void {
  app.decorateRequest('apiKey', null);

  app.addHook('onRequest', async (request, reply) => {
    const kind = limitClass(request);
    if (kind === undefined || !request.url.startsWith('/v1/')) return;
    if (context.faults.hit('serverErrorRate')) {
      throw new ApiError(
        'SERVICE_UNAVAILABLE',
        'the service is temporarily unavailable (injected fault); retry later',
      );
    }
    if (kind === 'public') return;
    request.apiKey = authenticate(context, request);
    if (kind !== 'batch')
      applyLimit(context, reply, request.apiKey.id, kind === 'create' ? 'create' : 'request', 1);
  });

  app.addHook('preHandler', async (request, reply) => {
    if (limitClass(request) !== 'batch' || !request.apiKey) return;
    const items = (request.body as { requests?: unknown } | undefined)?.requests;
    applyLimit(
      context,
      reply,
      request.apiKey.id,
      'create',
      Array.isArray(items) ? Math.max(1, items.length) : 1,
    );
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const kind = limitClass(request);
    if (
      kind &&
      kind !== 'public' &&
      request.url.startsWith('/v1/') &&
      context.faults.hit('dropConnectionRate')
    ) {
      // The work is done (a prediction may exist) but the client never hears of it.
      reply.header('connection', 'close');
      request.raw.socket.destroy();
    }
    return payload;
  });
}
