/**
 * The review page's server for one campaign: loopback by default, reachable elsewhere only through
 * `listen`; every path behind a signed per-person link (access.ts: Host, link, role, same origin),
 * and only the outputs the records name, from the campaign's folder (sheet-routes.ts).
 */
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import Fastify, { type FastifyInstance } from 'fastify';
import { type Access, guard } from './access.ts';
import { signLink } from './links.ts';
import { type ListenOptions, listening } from './listen.ts';
import type { LiveModel } from './live.ts';
import type { SendBatch } from './send.ts';
import { type SheetRouteOptions, sheetRoutes } from './sheet-routes.ts';
import { SHEET_PREFIX } from './sheet-url.ts';

export interface ReviewServerOptions extends ListenOptions, SheetRouteOptions {
  readonly live: LiveModel;
  readonly outputDir: string;
  /** One `review` update (sendChecked keeps each within the update's limit). */
  readonly send: SendBatch;
  /** The campaign's link secret and revocations; absent (tests): a secret for this process only. */
  readonly access?: Access;
  /** The link `url` opens (the operator's own); absent: one minted here, `decide`, for a day. */
  readonly ownerToken?: string;
}

export interface ReviewServer {
  /** http://127.0.0.1:<port>/<owner's link>/ */
  readonly url: string;
  /** http://<address>:<port>: any link's path appended to it opens the sheet. */
  readonly origin: string;
  close(): Promise<void>;
}

/** A secret for this process only (tests, and servers started without a keys file). */
export function processAccess(scope: string): Access {
  const keys = { secret: randomBytes(32), revoked: new Set<string>() };
  return { campaign: scope, keys: async () => keys };
}

/** The operator's link when none was given: `decide`, for a day, under the local user's name. */
export async function ownerLink(access: Access): Promise<string> {
  return signLink((await access.keys()).secret, {
    id: randomBytes(8).toString('hex'),
    campaign: access.campaign,
    name: userInfo().username || 'owner',
    role: 'decide',
    exp: Date.now() + 86_400_000,
  });
}

export async function startReviewServer(options: ReviewServerOptions): Promise<ReviewServer> {
  const access = options.access ?? processAccess('local');
  const ownerToken = options.ownerToken ?? (await ownerLink(access));
  const app: FastifyInstance = Fastify({ logger: false, routerOptions: { maxParamLength: 2048 } });
  const listen = listening(app, options);
  app.addHook(
    'onRequest',
    guard(access, () => listen.hosts),
  );
  const sheet = { live: options.live, outputDir: options.outputDir, send: options.send };
  sheetRoutes(app, '/:token', async () => sheet, options);

  // The address notifications carry (sheet-url.ts): to the sheet of the link in the cookie.
  app.get(`${SHEET_PREFIX}:campaign/`, async (request, reply) =>
    reply.header('cache-control', 'no-store').redirect(`/${request.reviewerToken}/`, 303),
  );

  await listen.start();
  const origin = listen.origin();
  return { url: `${origin}/${ownerToken}/`, origin, close: () => app.close() };
}
