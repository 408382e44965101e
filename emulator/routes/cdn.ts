/**
 * The CDN base (`cdnUrl`, outside /v1, no key: output links are handed to other tools).
 * Outputs are generated on download from the prediction's prompt and settings, so storing a
 * hundred thousand predictions costs no media memory.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.ts';
import { servedType, UPLOAD_HEADERS } from '../files/served-type.ts';
import { ApiError } from '../http/errors.ts';
import { sendDownload } from '../media/download.ts';
import { isGone, linkExpired } from '../media/links.ts';
import { imageOf, pictureOf, videoOf } from '../media/outputs.ts';
import type { StillSources } from '../media/still.ts';
import { providerSignature } from '../signing/provider-signature.ts';

export function cdnRoutes(app: FastifyInstance, context: EmulatorContext): void {
  // Deliberately open (the guard denies by default): links are handed to tools that hold no key.
  const open = { config: { access: 'public' as const } };
  // Outputs are served signed, as a provider signs them (signing/provider-signature.ts).
  const signature = providerSignature(context.options.signOutputs);
  // Where a video's first frame comes from: a still this emulator made, or an uploaded file.
  const stills: StillSources = {
    picture(id) {
      const made = context.predictions.get(id);
      return made?.status === 'succeeded' && made.outputs[0]?.endsWith('.png') ? pictureOf(made) : undefined;
    },
    file: (id) => context.files.get(id)?.data,
  };
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
      if (match![2] === 'png') {
        const image = await signature.served(prediction, () => imageOf(prediction), 'image/png');
        return sendDownload(reply, context.faults, image, 'image/png');
      }
      const video = await signature.served(prediction, () => videoOf(prediction, stills), 'video/mp4');
      return sendDownload(reply, context.faults, video, 'video/mp4');
    },
  );

  // Uploads are the user's, not the service's: keyed (the guard's default access), at an
  // unguessable id, never with a type a browser would run (files/served-type.ts).
  app.get<{ Params: { id: string; name: string } }>('/cdn/files/:id/:name', async (request, reply) => {
    const file = context.files.get(request.params.id);
    if (!file) throw new ApiError('NOT_FOUND', `no file ${request.params.id}`);
    reply.headers(UPLOAD_HEADERS);
    return sendDownload(reply, context.faults, file.data, servedType(file.contentType));
  });
}
