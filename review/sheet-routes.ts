/**
 * A campaign's sheet on a review server: the page, its re-laid sheets, the changes it polls for,
 * the decisions it posts and the outputs it shows, all relative to one prefix. The campaign server
 * (server.ts) mounts one sheet at `/<link>/`; the inbox server (inbox-server.ts) mounts every
 * campaign's at `/<link>/c/<campaign>/`. The page's own requests are relative, so either works.
 * Decisions carry the link's name as `by` and go to the workflow in batches of at most 500.
 */
import { extname } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ModelLabel } from '../api/catalogue/index.ts';
import { ReviewDecision } from '../contract/review.ts';
import { fileStands } from './channels.ts';
import { escapeHtml } from './escape-html.ts';
import type { LiveModel } from './live.ts';
import type { CampaignModel } from './model.ts';
import { renderPage, renderSheets } from './page.ts';
import { sendChecked } from './prompt-check.ts';
import { renderItem, renderStepCounts, renderTotals } from './render.ts';
import { renderChannelCounts, renderDerivative } from './render-channel.ts';
import { relativeUrl } from './report.ts';
import type { SendBatch } from './send.ts';
import { openOutput } from './served-file.ts';
import type { Layout } from './sheet.ts';
import { sheetCookie } from './sheet-url.ts';
import { winnerUnrecorded, withWinners } from './winners.ts';

/** How long a loser's answer waits for the winner's record (winners.ts): up to 2 s. */
const WINNER_WAITS = 10;
const WINNER_WAIT_MS = 200;

/** What one campaign's sheet is served from. */
export interface Sheet {
  readonly live: LiveModel;
  readonly outputDir: string;
  /** One `review` update (sendChecked keeps each within the update's limit). */
  readonly send: SendBatch;
}

export interface SheetRouteOptions {
  /** How long the page holds decisions so `z` can undo them, and how often it polls. */
  readonly holdMs?: number;
  readonly pollMs?: number;
  /** A link back to the inbox, relative to the sheet; absent: none. */
  readonly backHref?: string;
}

/**
 * What a page may post: decisions on job keys (plan/keys.ts: 32 hex characters), checked before
 * anything reaches the workflow, whose history holds every batch sent.
 */
export const DecisionsBody = z.object({
  decisions: z
    .array(ReviewDecision.extend({ key: z.string().regex(/^[0-9a-f]{32}$/, 'must be a job key') }))
    .min(1)
    .max(100_000),
});

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

/**
 * The files the model shows: the only ones the server hands out. A derivative's is there only once
 * its record of this plan says it was made, under the name the plan gives it (channels.ts).
 */
function filesOf(model: CampaignModel): Set<string> {
  const files = new Set<string>();
  for (const item of model.steps.flatMap((step) => step.items)) {
    for (const output of [item, ...item.descendants]) if (output.file) files.add(output.file);
  }
  for (const card of model.channels.flatMap((channel) => channel.items)) {
    if (fileStands(card)) files.add(card.file);
  }
  return files;
}

/** The files of reviewed derive steps, each with its parent's model: decided here like a job. */
function reviewedCards(model: CampaignModel): { key: string; model: ModelLabel }[] {
  return model.channels.flatMap((channel) => {
    const parent = model.steps.find((step) => step.id === channel.from);
    if (!channel.reviewed || !parent) return [];
    return channel.items.map((card) => ({ key: card.key, model: parent.model }));
  });
}

function layoutOf(query: { rows?: string; cols?: string }): Layout | null {
  if (query.rows === undefined && query.cols === undefined) return null;
  const axes = (value: string | undefined) => (value ? [value] : []);
  return { rows: axes(query.rows), cols: axes(query.cols) };
}

/** Who asked, for the page's own use: the name in its header and whether its keys decide. */
const bodyAttributes = (request: FastifyRequest) =>
  `data-reviewer="${escapeHtml(request.reviewer?.name ?? '')}" data-role="${request.reviewer?.role ?? 'view'}"`;

const fileUrl = (file: string) => `files/${relativeUrl(file)}`;
const pageOptions = (layout: Layout | null) => ({
  mode: 'review' as const,
  layout,
  fileUrl,
  now: new Date(),
});

type Query = { Querystring: { rows?: string; cols?: string; since?: string }; Params: { '*'?: string } };

/**
 * Mounts the sheet routes under `prefix`; `sheetOf` names the request's campaign's sheet, null
 * when the server has none of that name (404).
 */
export function sheetRoutes(
  app: FastifyInstance,
  prefix: string,
  sheetOf: (request: FastifyRequest) => Promise<Sheet | null>,
  options: SheetRouteOptions = {},
): void {
  const back = options.backHref ? `<a class="back" href="${escapeHtml(options.backHref)}">← Inbox</a>` : '';
  app.get<Query>(`${prefix}/`, async (request, reply) => {
    const sheet = await sheetOf(request);
    if (!sheet) return reply.code(404).send({ message: 'no such campaign awaits review here' });
    const { model, generation } = await sheet.live.snapshot();
    const html = renderPage(model, pageOptions(layoutOf(request.query)))
      .replace(
        '<body class="f-all"',
        `<body class="f-all" ${bodyAttributes(request)} data-generation="${generation}" data-delay="${options.holdMs ?? 2500}" data-poll="${options.pollMs ?? 1500}"`,
      )
      .replace('<div class="title">', `<div class="title">${back}`);
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('set-cookie', sheetCookie(request.reviewerToken ?? '', request.reviewer?.exp ?? 0))
      .send(html);
  });

  app.get<Query>(`${prefix}/sheets`, async (request, reply) => {
    const sheet = await sheetOf(request);
    if (!sheet) return reply.code(404).send({ message: 'no such campaign' });
    const model = await sheet.live.current();
    return reply
      .type('text/html; charset=utf-8')
      .send(renderSheets(model, pageOptions(layoutOf(request.query))));
  });

  app.get<Query>(`${prefix}/changes`, async (request, reply) => {
    const sheet = await sheetOf(request);
    if (!sheet) return reply.code(404).send({ message: 'no such campaign' });
    const since = Number(request.query.since ?? 0) || 0;
    const { model, generation, items, derivatives } = await sheet.live.changesSince(since);
    return {
      generation,
      totals: renderTotals(model),
      counts: Object.fromEntries([
        ...model.steps.map((step) => [step.id, renderStepCounts(step)]),
        ...model.channels.map((channel) => [channel.id, renderChannelCounts(channel)]),
      ]),
      items: Object.fromEntries([
        ...items.map((item) => [item.key, renderItem(item, fileUrl)]),
        ...derivatives.map((card) => [card.key, renderDerivative(card, fileUrl)]),
      ]),
    };
  });

  app.post(`${prefix}/decisions`, async (request, reply) => {
    const sheet = await sheetOf(request);
    if (!sheet) return reply.code(404).send({ message: 'no such campaign' });
    const parsed = DecisionsBody.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return reply.code(400).send({ message: `${issue?.path.join('.') || 'body'}: ${issue?.message}` });
    }
    // The link says who decides: a name in the body is not trusted over it.
    const by = request.reviewer?.name;
    const decisions = parsed.data.decisions.map((decision) => ({ ...decision, by }));
    try {
      const current = await sheet.live.current();
      const ack = await sendChecked(decisions, current, sheet.send, reviewedCards(current));
      sheet.live.invalidate();
      let model = await sheet.live.current();
      for (let wait = 0; wait < WINNER_WAITS && winnerUnrecorded(ack, model); wait++) {
        await setTimeout(WINNER_WAIT_MS);
        sheet.live.invalidate();
        model = await sheet.live.current();
      }
      return withWinners(ack, model);
    } catch (error) {
      // The campaign ended, or no worker answered: said on the page, nothing recorded.
      return reply.code(502).send({ message: (error as Error).message });
    } finally {
      sheet.live.invalidate();
    }
  });

  app.get<Query>(`${prefix}/files/*`, async (request, reply) => {
    const sheet = await sheetOf(request);
    const file = request.params['*'] ?? '';
    if (!sheet || !filesOf(await sheet.live.current()).has(file))
      return reply.code(404).send({ message: 'no such output' });
    const body = await openOutput(sheet.outputDir, file);
    if (!body) return reply.code(404).send({ message: 'no such output' });
    return reply
      .type(TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream')
      .header('cache-control', 'no-cache')
      .send(body);
  });
}
