/**
 * The wire protocol every route shares: JSON bodies in (an empty body is no body, bad JSON is a
 * 400 INVALID_JSON), the part 7 error shape out for every failure, and never a 500 for
 * anything a client sent. Requests are counted in the ledger by route pattern and status.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { ErrorCode } from '../../api/wire/index.ts';
import type { LedgerRecorder } from '../ledger.ts';
import { ApiError, errorBody } from './errors.ts';

/** Fastify's own client errors, in our codes. */
const FASTIFY_CODES: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
};

const FASTIFY_MESSAGES: Partial<Record<ErrorCode, string>> = {
  PAYLOAD_TOO_LARGE: 'the request body is too large (1 MiB; 16 MiB for POST /v1/files)',
  UNSUPPORTED_MEDIA_TYPE: 'send request bodies as JSON with "Content-Type: application/json"',
};

export function installProtocol(app: FastifyInstance, ledger: LedgerRecorder): void {
  // Only JSON: fastify's default text/plain parser would let a wrong content type through.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      // Say where, never what: V8's message quotes the body, which may hold a secret or markup.
      const at = /position (\d+)/.exec((error as Error).message)?.[1];
      const where = at === undefined ? '' : ` (at character ${at})`;
      done(new ApiError('INVALID_JSON', `the body is not valid JSON${where}`));
    }
  });

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      return reply
        .code(error.status)
        .headers(error.details.headers ?? {})
        .send(error.toBody());
    }
    const code = FASTIFY_CODES[error.code];
    if (code || (error.statusCode !== undefined && error.statusCode < 500)) {
      const known = code ?? 'INVALID_REQUEST';
      const status = code ? new ApiError(known, '').status : error.statusCode!;
      return reply.code(status).send(errorBody(known, FASTIFY_MESSAGES[known] ?? error.message));
    }
    request.log.error(error);
    return reply
      .code(500)
      .send(errorBody('INTERNAL_ERROR', 'the emulator failed unexpectedly; this is a bug'));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    reply
      .code(404)
      .send(
        errorBody(
          'NOT_FOUND',
          `no endpoint ${request.method} ${path}; the API is described at /v1/openapi.json`,
        ),
      );
  });

  const patterns = new Map<string, string>();
  app.addHook('onResponse', async (request, reply) => {
    // The matched pattern decides, so `/v%31/...` is counted as the /v1 route it reached.
    const url = request.routeOptions.url;
    if (!(url === undefined ? request.url.startsWith('/v1/') : url.startsWith('/v1/'))) return;
    let route = url === undefined ? 'unmatched' : patterns.get(`${request.method} ${url}`);
    if (route === undefined) {
      route = `${request.method} ${url!.replace(/:(\w+)/g, '{$1}')}`;
      patterns.set(`${request.method} ${url}`, route);
    }
    ledger.request(route, reply.statusCode);
  });
}
