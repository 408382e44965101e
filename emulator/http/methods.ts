/**
 * 405 Method Not Allowed with an `Allow` header (RFC 9110) for a method a known path does not
 * serve; fastify alone answers 404, which tells a client its URL is wrong when only the method
 * is. Routes are recorded as they are added, then one catch-all route per path takes every other
 * method fastify knows. It keeps the path's access (a keyed path still wants a key first), so a
 * 405 reveals no more than the OpenAPI document does.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ApiError } from './errors.ts';

interface PathMethods {
  readonly methods: Set<string>;
  readonly config: RouteOptions['config'];
}

/** Call before any route is added; call the returned function after the last one. */
export function recordRoutes(app: FastifyInstance): () => void {
  const paths = new Map<string, PathMethods>();
  app.addHook('onRoute', (route) => {
    const entry = paths.get(route.url) ?? { methods: new Set<string>(), config: route.config };
    for (const method of [route.method].flat()) entry.methods.add(method.toUpperCase());
    paths.set(route.url, entry);
  });
  return () => {
    // Snapshot first: the routes added below fire onRoute too.
    for (const [url, { methods, config }] of [...paths]) {
      // fastify answers HEAD for every GET route by itself.
      if (methods.has('GET')) methods.add('HEAD');
      const allow = [...methods].sort().join(', ');
      const others = app.supportedMethods.filter((method) => !methods.has(method));
      if (others.length === 0) continue;
      app.route({
        method: others,
        url,
        config: { ...config, limit: 'request' },
        // In onRequest, after the guard's hooks but before any body is parsed: a PUT with a bad
        // body is still a 405, not a 400 about a body the path never takes.
        onRequest: async (request) => {
          throw new ApiError(
            'METHOD_NOT_ALLOWED',
            `${request.method} is not served at ${url}; allowed: ${allow}`,
            {
              headers: { allow },
            },
          );
        },
        handler: async () => undefined,
      });
    }
  };
}
