/**
 * Where a review server listens and which Host headers it answers (access.ts checks them): its
 * own address, the public URL's host (a reverse proxy's), and on loopback or every address the
 * names of this host itself. Shared by the campaign server and the inbox server.
 */
import type { FastifyInstance } from 'fastify';

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '::ffff:0:0']);
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export interface ListenOptions {
  /** Where to listen (default 127.0.0.1): another address serves beyond this host. */
  readonly host?: string;
  readonly port?: number;
  /** Host headers answered besides the listening address's (the public URL's, behind a proxy). */
  readonly allowedHosts?: readonly string[];
}

export interface Listening {
  /** The Host headers answered; the guard reads it for every request. */
  readonly hosts: Set<string>;
  /** http://<address>:<port>, 127.0.0.1 for loopback and every address. */
  origin(): string;
  start(): Promise<void>;
}

export function listening(app: FastifyInstance, options: ListenOptions): Listening {
  const hosts = new Set((options.allowedHosts ?? []).map((host) => host.toLowerCase()));
  const host = options.host ?? '127.0.0.1';
  let local = '';
  return {
    hosts,
    origin: () => local,
    async start() {
      const origin = await app.listen({ host, port: options.port ?? 0 });
      const port = new URL(origin).port;
      if (!WILDCARDS.has(host)) hosts.add(new URL(origin).host.toLowerCase());
      const here = LOOPBACK.has(host) || WILDCARDS.has(host);
      if (here) for (const name of ['127.0.0.1', 'localhost', '[::1]']) hosts.add(`${name}:${port}`);
      local = here ? `http://127.0.0.1:${port}` : origin;
    },
  };
}
