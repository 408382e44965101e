/** Files: upload (JSON, base64 `data`), list, get, delete. The bytes are served under the CDN. */
import type { FastifyInstance } from 'fastify';
import { UploadFileBody } from '../../api/wire/index.ts';
import type { EmulatorContext } from '../context.ts';
import { MAX_FILE_BYTES } from '../files/store.ts';
import { paginate, parsePageQuery } from '../http/pagination.ts';
import { parseWith } from '../http/validate.ts';
import { notFound } from './lookup.ts';

/** Base64 grows a file by 4/3; leave room for the JSON around it. */
const UPLOAD_BODY_LIMIT = Math.ceil((MAX_FILE_BYTES * 4) / 3) + 64 * 1024;

type IdParams = { Params: { id: string } };

export function fileRoutes(app: FastifyInstance, context: EmulatorContext): void {
  const { files } = context;
  const find = (id: string) => {
    const file = files.get(id);
    if (!file) throw notFound('file', id);
    return file;
  };

  app.post('/v1/files', { bodyLimit: UPLOAD_BODY_LIMIT }, async (request) =>
    files.toWire(files.upload(parseWith(UploadFileBody, request.body))),
  );
  app.get('/v1/files', async (request) =>
    paginate(
      files.list(),
      (f) => f.seq,
      parsePageQuery(request.query as Record<string, unknown>),
      (f) => files.toWire(f),
    ),
  );
  app.get<IdParams>('/v1/files/:id', async (request) => files.toWire(find(request.params.id)));
  app.delete<IdParams>('/v1/files/:id', async (request) => {
    files.delete(find(request.params.id).id);
    return { id: request.params.id, deleted: true };
  });
}
