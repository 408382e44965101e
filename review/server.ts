/**
 * The review page's server: loopback only, every path behind a random token (a page of another
 * site cannot guess it, so it can neither read the outputs nor post decisions), only the outputs
 * the records name, from the campaign's folder (served-file.ts). Decisions go to the workflow in batches of at most 500, the
 * `review` update's limit.
 */
import { randomBytes } from 'node:crypto';
import { extname } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ReviewDecision } from '../contract/review.ts';
import type { LiveModel } from './live.ts';
import type { CampaignModel } from './model.ts';
import { renderPage, renderSheets } from './page.ts';
import { sendChecked } from './prompt-check.ts';
import { renderItem, renderStepCounts, renderTotals } from './render.ts';
import { relativeUrl } from './report.ts';
import type { SendBatch } from './send.ts';
import { openOutput } from './served-file.ts';
import type { Layout } from './sheet.ts';

export interface ReviewServerOptions {
  readonly live: LiveModel;
  readonly outputDir: string;
  /** One `review` update (sendAll keeps each within the update's limit). */
  readonly send: SendBatch;
  readonly port?: number;
  /** How long the page holds decisions so `z` can undo them, and how often it polls. */
  readonly holdMs?: number;
  readonly pollMs?: number;
}

export interface ReviewServer {
  /** http://127.0.0.1:<port>/<token>/ */
  readonly url: string;
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

export async function startReviewServer(options: ReviewServerOptions): Promise<ReviewServer> {
  const token = randomBytes(24).toString('base64url');
  const app: FastifyInstance = Fastify({ logger: false });
  const base = `/${token}`;
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
      `<body class="f-all" data-generation="${generation}" data-delay="${options.holdMs ?? 2500}" data-poll="${options.pollMs ?? 1500}"`,
    );
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
  });

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
    try {
      return await sendChecked(parsed.data.decisions, await options.live.current(), options.send);
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

  const address = await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  return { url: `${address}${base}/`, close: () => app.close() };
}
