/**
 * The review page's server: loopback by default, reachable elsewhere only through `listen`; every
 * path behind a signed per-person link (access.ts: Host, link, role, same origin), and only the
 * outputs the records name, from the campaign's folder (served-file.ts). Decisions carry the link's
 * name as `by` and go to the workflow in batches of at most 500, the `review` update's limit.
 */
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { extname } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ReviewDecision } from '../contract/review.ts';
import { type Access, guard } from './access.ts';
import { signLink } from './links.ts';
import type { LiveModel } from './live.ts';
import type { CampaignModel } from './model.ts';
import { renderPage, renderSheets } from './page.ts';
import { sendChecked } from './prompt-check.ts';
import { renderItem, renderStepCounts, renderTotals } from './render.ts';
import { relativeUrl } from './report.ts';
import type { SendBatch } from './send.ts';
import { openOutput } from './served-file.ts';
import type { Layout } from './sheet.ts';
import { SHEET_PREFIX, sheetCookie } from './sheet-url.ts';
import { withWinners } from './winners.ts';

export interface ReviewServerOptions {
  readonly live: LiveModel;
  readonly outputDir: string;
  /** One `review` update (sendAll keeps each within the update's limit). */
  readonly send: SendBatch;
  readonly port?: number;
  /** Where to listen (default 127.0.0.1): another address serves the sheet beyond this host. */
  readonly host?: string;
  /** Host headers answered besides the listening address's (the public URL's, behind a proxy). */
  readonly allowedHosts?: readonly string[];
  /** The campaign's link secret and revocations; absent (tests): a secret for this process only. */
  readonly access?: Access;
  /** The link `url` opens (the operator's own); absent: one minted here, `decide`, for a day. */
  readonly ownerToken?: string;
  /** How long the page holds decisions so `z` can undo them, and how often it polls. */
  readonly holdMs?: number;
  readonly pollMs?: number;
}

export interface ReviewServer {
  /** http://127.0.0.1:<port>/<owner's link>/ */
  readonly url: string;
  /** http://<address>:<port>: any link's path appended to it opens the sheet. */
  readonly origin: string;
  close(): Promise<void>;
}

const Decisions = z.object({ decisions: z.array(ReviewDecision).min(1).max(100_000) });

const TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
};

/** The files the model shows: the only ones the server hands out. */
function filesOf(model: CampaignModel): Set<string> {
  const files = new Set<string>();
  for (const item of model.steps.flatMap((step) => step.items)) {
    for (const output of [item, ...item.descendants]) if (output.file) files.add(output.file);
  }
  return files;
}

function layoutOf(query: { rows?: string; cols?: string }): Layout | null {
  if (query.rows === undefined && query.cols === undefined) return null;
  const axes = (value: string | undefined) => (value ? [value] : []);
  return { rows: axes(query.rows), cols: axes(query.cols) };
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Who asked, for the page's own use: the name in its header and whether its keys decide. */
const bodyAttributes = (request: FastifyRequest) =>
  `data-reviewer="${escapeAttribute(request.reviewer?.name ?? '')}" data-role="${request.reviewer?.role ?? 'view'}"`;

function escapeAttribute(text: string): string {
  return text.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export async function startReviewServer(options: ReviewServerOptions): Promise<ReviewServer> {
  const access: Access = options.access ?? {
    campaign: 'local',
    keys: (() => {
      const keys = { secret: randomBytes(32), revoked: new Set<string>() };
      return async () => keys;
    })(),
  };
  const ownerToken =
    options.ownerToken ??
    signLink((await access.keys()).secret, {
      id: randomBytes(8).toString('hex'),
      campaign: access.campaign,
      name: userInfo().username || 'owner',
      role: 'decide',
      exp: Date.now() + 86_400_000,
    });
  const app: FastifyInstance = Fastify({ logger: false, maxParamLength: 2048 });
  const hosts = new Set((options.allowedHosts ?? []).map((host) => host.toLowerCase()));
  app.addHook(
    'onRequest',
    guard(access, () => hosts),
  );
  const base = '/:token';
  const fileUrl = (file: string) => `files/${relativeUrl(file)}`;
  const pageOptions = (layout: Layout | null) => ({
    mode: 'review' as const,
    layout,
    fileUrl,
    now: new Date(),
  });

  app.get<{ Querystring: { rows?: string; cols?: string } }>(`${base}/`, async (request, reply) => {
    const { model, generation } = await options.live.snapshot();
    const html = renderPage(model, pageOptions(layoutOf(request.query))).replace(
      '<body class="f-all"',
      `<body class="f-all" ${bodyAttributes(request)} data-generation="${generation}" data-delay="${options.holdMs ?? 2500}" data-poll="${options.pollMs ?? 1500}"`,
    );
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('set-cookie', sheetCookie(request.reviewerToken ?? '', request.reviewer?.exp ?? 0))
      .send(html);
  });

  // The address notifications carry (sheet-url.ts): to the sheet of the link in the cookie.
  app.get(`${SHEET_PREFIX}:campaign/`, async (request, reply) =>
    reply.header('cache-control', 'no-store').redirect(`/${request.reviewerToken}/`, 303),
  );

  app.get<{ Querystring: { rows?: string; cols?: string } }>(`${base}/sheets`, async (request, reply) => {
    const model = await options.live.current();
    return reply
      .type('text/html; charset=utf-8')
      .send(renderSheets(model, pageOptions(layoutOf(request.query))));
  });

  app.get<{ Querystring: { since?: string } }>(`${base}/changes`, async (request) => {
    const { model, generation, items } = await options.live.changesSince(
      Number(request.query.since ?? 0) || 0,
    );
    return {
      generation,
      totals: renderTotals(model),
      counts: Object.fromEntries(model.steps.map((step) => [step.id, renderStepCounts(step)])),
      items: Object.fromEntries(items.map((item) => [item.key, renderItem(item, fileUrl)])),
    };
  });

  app.post(`${base}/decisions`, async (request, reply) => {
    const parsed = Decisions.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return reply.code(400).send({ message: `${issue?.path.join('.') || 'body'}: ${issue?.message}` });
    }
    // The link says who decides: a name in the body is not trusted over it.
    const by = request.reviewer?.name;
    const decisions = parsed.data.decisions.map((decision) => ({ ...decision, by }));
    try {
      const ack = await sendChecked(decisions, await options.live.current(), options.send);
      options.live.invalidate();
      return await withWinners(ack, await options.live.current());
    } catch (error) {
      // The campaign ended, or no worker answered: said on the page, nothing recorded.
      return reply.code(502).send({ message: (error as Error).message });
    } finally {
      options.live.invalidate();
    }
  });

  app.get<{ Params: { '*': string } }>(`${base}/files/*`, async (request, reply) => {
    const file = request.params['*'];
    const model = await options.live.current();
    if (!filesOf(model).has(file)) return reply.code(404).send({ message: 'no such output' });
    const body = await openOutput(options.outputDir, file);
    if (!body) return reply.code(404).send({ message: 'no such output' });
    return reply
      .type(TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream')
      .header('cache-control', 'no-cache')
      .send(body);
  });

  const host = options.host ?? '127.0.0.1';
  const origin = await app.listen({ host, port: options.port ?? 0 });
  const port = new URL(origin).port;
  if (!WILDCARDS.has(host)) hosts.add(new URL(origin).host.toLowerCase());
  // On loopback or every address, the names of this host itself are answered too.
  if (LOOPBACK.has(host) || WILDCARDS.has(host))
    for (const name of ['127.0.0.1', 'localhost', '[::1]']) hosts.add(`${name}:${port}`);
  const local = LOOPBACK.has(host) || WILDCARDS.has(host) ? `http://127.0.0.1:${port}` : origin;
  return { url: `${local}/${ownerToken}/`, origin: local, close: () => app.close() };
}
