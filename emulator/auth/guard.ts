/**
 * What happens to every request before its handler, decided by the route fastify matched (its
 * pattern and config), never by the raw URL: the router decodes `/v%31/...` to `/v1/...`, so a
 * check on `request.url` could be skipped by spelling the same route another way.
 * 1. the injected 5xx fault, on /v1 routes (before any work, so nothing is created);
 * 2. access, deny by default: a route needs a valid `Authorization: Bearer <key>` unless its
 *    config says `access: 'public'` (health, CDN) or `'loopback'` (the emulator's controls);
 * 3. the rate limit of its kind: creates take one token per prediction asked for (a batch takes
 *    one per item, once its body is parsed), every other keyed request one request token.
 * After the handler, the injected dropped-connection fault discards the reply of work done.
 * All of it is O(1) per request.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import type { KeyRecord } from './keys.ts';

export type LimitClass = 'create' | 'batch' | 'request';
export type Access = 'key' | 'public' | 'loopback';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; default 'key'. */
    access?: Access;
    /** Which rate limit a keyed route takes from; default 'request'. */
    limit?: LimitClass;
  }
  interface FastifyRequest {
    apiKey: KeyRecord | null;
  }
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The key that authenticated this request (every keyed route has one). */
export function keyOf(request: FastifyRequest): KeyRecord {
  if (!request.apiKey) throw new ApiError('UNAUTHENTICATED', 'this request is not authenticated');
  return request.apiKey;
}

/** The matched route's pattern, e.g. `/v1/api-keys`; undefined when nothing matched (a 404). */
function routeOf(request: FastifyRequest): string | undefined {
  return request.routeOptions.url;
}

/** Whether the matched route belongs to the service API (the pattern, not the spelling). */
export function isApiRoute(request: FastifyRequest): boolean {
  return routeOf(request)?.startsWith('/v1/') ?? false;
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
    // Unknown routes get their 404 without asking for a key first: it reveals nothing.
    if (routeOf(request) === undefined) return;
    const { access = 'key', limit = 'request' } = request.routeOptions.config;
    if (isApiRoute(request) && context.faults.hit('serverErrorRate')) {
      throw new ApiError(
        'SERVICE_UNAVAILABLE',
        'the service is temporarily unavailable (injected fault); retry later',
      );
    }
    if (access === 'public') return;
    if (access === 'loopback') {
      if (LOOPBACK.has(request.socket.remoteAddress ?? '')) return;
      throw new ApiError('NOT_FOUND', 'the emulator controls are served on loopback only');
    }
    request.apiKey = authenticate(context, request);
    if (limit !== 'batch') applyLimit(context, reply, request.apiKey.id, limit, 1);
  });

  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.limit !== 'batch' || !request.apiKey) return;
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
    if (request.apiKey && isApiRoute(request) && context.faults.hit('dropConnectionRate')) {
      // The work is done (a prediction may exist) but the client never hears of it.
      reply.header('connection', 'close');
      request.raw.socket.destroy();
    }
    return payload;
  });
}
