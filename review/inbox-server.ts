/**
 * The inbox server (docs/review.md, "The inbox"): one page listing every running campaign of the
 * stack with takes awaiting review, each a link to its sheet, served by this same server at
 * `/<link>/c/<campaign>/` (sheet-routes.ts). Its links are inbox links (links.ts, INBOX_SCOPE):
 * signed under the inbox's own secret, each a person with a role that holds on every sheet.
 * Access is checked as on a campaign's server (access.ts): Host, link, role, same origin.
 * Campaigns are opened when first listed or visited and kept open (a worker for decisions, on
 * the embedded default, is started only at the first decision) until the server closes.
 */
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { SAFE_NAME } from '../plan/schema.ts';
import type { ManifestEntry } from '../records/manifest.ts';
import { type Access, guard } from './access.ts';
import { type InboxRow, inboxRow } from './inbox.ts';
import { renderInbox } from './inbox-page.ts';
import { INBOX_SCOPE } from './links.ts';
import { type ListenOptions, listening } from './listen.ts';
import { LiveModel } from './live.ts';
import type { ModelSources } from './model.ts';
import type { SendBatch } from './send.ts';
import { ownerLink, processAccess, type ReviewServer } from './server.ts';
import { type Sheet, type SheetRouteOptions, sheetRoutes } from './sheet-routes.ts';
import { SHEET_PREFIX } from './sheet-url.ts';

/** A campaign as the inbox opens it (review/campaign.ts, ReviewCampaign). */
export interface InboxCampaign {
  readonly start: { readonly outputDir: string };
  readonly load: () => Promise<ModelSources>;
  readonly send: SendBatch;
  close(): Promise<unknown>;
}

export interface InboxServerOptions extends ListenOptions, SheetRouteOptions {
  /** The inbox's secret and revocations (scope INBOX_SCOPE); absent (tests): this process's own. */
  readonly access?: Access;
  /** The running campaigns of the stack, by name (control/running-campaigns.ts). */
  readonly campaigns: () => Promise<readonly string[]>;
  /** Opens one campaign; throws for a name the stack does not know. */
  readonly open: (campaign: string) => Promise<InboxCampaign>;
  /** The link `url` opens (the operator's own); absent: one minted here, `decide`, for a day. */
  readonly ownerToken?: string;
  /** How often a campaign is read at most (default 1 s). */
  readonly readEveryMs?: number;
  /** Seconds between the inbox page's reloads (default 15; 0: none). */
  readonly refreshSeconds?: number;
}

interface Opened extends Sheet {
  readonly campaign: InboxCampaign;
  /** The manifest lines of the latest reading: when each take was saved. */
  entries: ReadonlyMap<string, Pick<ManifestEntry, 'finished_at'>>;
}

export async function startInboxServer(options: InboxServerOptions): Promise<ReviewServer> {
  const access = options.access ?? processAccess(INBOX_SCOPE);
  const ownerToken = options.ownerToken ?? (await ownerLink(access));
  const app: FastifyInstance = Fastify({ logger: false, routerOptions: { maxParamLength: 2048 } });
  const listen = listening(app, options);
  app.addHook(
    'onRequest',
    guard(access, () => listen.hosts),
  );

  const opened = new Map<string, Promise<Opened>>();
  function open(name: string): Promise<Opened> {
    const known = opened.get(name);
    if (known) return known;
    const opening = options.open(name).then((campaign) => {
      const site: Opened = {
        campaign,
        outputDir: campaign.start.outputDir,
        send: campaign.send,
        entries: new Map(),
        live: new LiveModel(async () => {
          const sources = await campaign.load();
          site.entries = sources.entries;
          return sources;
        }, options.readEveryMs ?? 1000),
      };
      return site;
    });
    // A campaign that could not be opened (unknown, its folder unreadable) is tried again next time.
    opening.catch(() => {
      if (opened.get(name) === opening) opened.delete(name);
    });
    opened.set(name, opening);
    return opening;
  }

  async function rows(): Promise<InboxRow[]> {
    const names = await options.campaigns();
    const read = await Promise.allSettled(
      names.map(async (name) => {
        const site = await open(name);
        return inboxRow(await site.live.current(), site.entries);
      }),
    );
    // A campaign that cannot be read here (its outputs on other machines) is left out, not fatal.
    return read.flatMap((result) => (result.status === 'fulfilled' && result.value ? [result.value] : []));
  }

  app.get('/:token/', async (request, reply) => {
    const html = renderInbox(await rows(), {
      now: new Date(),
      reviewer: request.reviewer?.name ?? '',
      role: request.reviewer?.role ?? 'view',
      sheetHref: (campaign) => `c/${encodeURIComponent(campaign)}/`,
      refreshSeconds: options.refreshSeconds,
    });
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send(html);
  });

  const sheetOf = async (request: FastifyRequest): Promise<Sheet | null> => {
    const name = (request.params as { campaign?: string }).campaign ?? '';
    if (!SAFE_NAME.test(name)) return null;
    return open(name).catch(() => null);
  };
  sheetRoutes(app, '/:token/c/:campaign', sheetOf, { ...options, backHref: '../../' });

  // The address notifications carry (sheet-url.ts): this server holds every campaign's sheet.
  app.get<{ Params: { campaign: string } }>(`${SHEET_PREFIX}:campaign/`, async (request, reply) =>
    reply
      .header('cache-control', 'no-store')
      .redirect(`/${request.reviewerToken}/c/${encodeURIComponent(request.params.campaign)}/`, 303),
  );

  await listen.start();
  const origin = listen.origin();
  return {
    url: `${origin}/${ownerToken}/`,
    origin,
    async close() {
      await app.close();
      const all = await Promise.allSettled(opened.values());
      await Promise.all(all.map((one) => (one.status === 'fulfilled' ? one.value.campaign.close() : null)));
    },
  };
}
