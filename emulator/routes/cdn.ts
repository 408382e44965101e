/**
 * The CDN base (`cdnUrl`, outside /v1, no key: output links are handed to other tools).
 * Outputs are generated on download from the prediction's prompt and settings, so storing a
 * hundred thousand predictions costs no media memory.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { aspectRatioOf, durationOf, fitRatio, videoSizeOf } from '../media/dimensions.ts';
import { sendDownload } from '../media/download.ts';
import { isGone, linkExpired } from '../media/links.ts';
import { renderMp4 } from '../media/mp4.ts';
import { renderPng } from '../media/png.ts';

/** Long side of generated images: enough to look at, cheap to make. */
const IMAGE_LONG_SIDE = 512;

export function cdnRoutes(app: FastifyInstance, context: EmulatorContext): void {
  // Deliberately open (the guard denies by default): links are handed to tools that hold no key.
  const open = { config: { access: 'public' as const } };
  app.get<{ Params: { file: string }; Querystring: { expires?: string } }>(
    '/cdn/outputs/:file',
    open,
    async (request, reply) => {
      const match = /^(\d{1,15})\.(png|mp4)$/.exec(request.params.file);
      const prediction = match ? context.predictions.get(Number(match[1])) : undefined;
      // Only a succeeded prediction has outputs; a link past its `expires` is gone (media/links.ts).
      if (!prediction?.outputs[0]?.endsWith(`/${request.params.file}`)) {
        throw new ApiError('NOT_FOUND', `no output ${request.params.file}`);
      }
      if (linkExpired(request.query.expires)) {
        return reply
          .code(410)
          .send({ error: { type: 'not_found', code: 'LINK_EXPIRED', message: 'link expired' } });
      }
      if (isGone(prediction)) throw new ApiError('NOT_FOUND', `output ${request.params.file} was deleted`);
      const prompt = String(prediction.input.prompt);
      if (match![2] === 'png') {
        const size = fitRatio(aspectRatioOf(prediction.label, prediction.input), IMAGE_LONG_SIDE);
        return sendDownload(reply, context.faults, renderPng(prompt, size), 'image/png');
      }
      const video = renderMp4(
        prompt,
        videoSizeOf(prediction.label, prediction.input),
        durationOf(prediction.label, prediction.input),
      );
      return sendDownload(reply, context.faults, video, 'video/mp4');
    },
  );

  app.get<{ Params: { id: string; name: string } }>('/cdn/files/:id/:name', open, async (request, reply) => {
    const file = context.files.get(request.params.id);
    if (!file) throw new ApiError('NOT_FOUND', `no file ${request.params.id}`);
    return sendDownload(reply, context.faults, file.data, file.contentType);
  });
}
