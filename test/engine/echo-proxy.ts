/**
 * A hostile service for the secrets test: a proxy in front of a real emulator that echoes the API
 * key, in every form of test/helpers/key-forms.ts, in every field it can. The first create is a
 * 503 (retried: its failure sits in the server's mutable state), the first batch item of the next
 * is refused, the stream is refused, and every prediction read comes back `failed` with the key in
 * its error. What each echo hit is counted, so the test can tell the echoes reached the engine.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keyForms } from '../helpers/key-forms.ts';

export interface EchoProxy {
  /** Ends with /v1, like the emulator's. */
  readonly baseUrl: string;
  readonly echoed: { create503: number; itemRefused: number; streamRefused: number; failedReads: number };
  close(): Promise<void>;
}

export function echoError(key: string): Record<string, unknown> {
  const forms = Object.values(keyForms(key));
  return {
    type: `invalid_request_error ${forms[1]}`,
    code: `BAD_KEY_${forms[3]}`,
    message: `the key ${forms.join(' / ')} is wrong`,
    param: `input.${forms[7]}`,
    allowed: forms,
  };
}

export async function startEchoProxy(target: string, key: string): Promise<EchoProxy> {
  const origin = new URL(target).origin;
  const echoed = { create503: 0, itemRefused: 0, streamRefused: 0, failedReads: 0 };
  let creates = 0;
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = req.url ?? '/';
    const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(value));
    };
    const isCreate = req.method === 'POST' && /\/predictions(\/batch)?$/.test(path);
    if (isCreate && ++creates === 1) {
      echoed.create503 += 1;
      return send(503, { error: { ...echoError(key), type: 'api_error' } }, { 'retry-after-ms': '20' });
    }
    if (req.method === 'GET' && path.endsWith('/stream')) {
      echoed.streamRefused += 1;
      return send(400, { error: echoError(key) });
    }
    const upstream = await fetch(`${origin}${path}`, {
      method: req.method ?? 'GET',
      headers: forwardedHeaders(req),
      ...(body.length > 0 ? { body: new Uint8Array(body) } : {}),
    });
    const text = await upstream.text();
    let value: Record<string, unknown> | undefined;
    try {
      value = JSON.parse(text) as Record<string, unknown>;
    } catch {
      value = undefined;
    }
    if (value && upstream.ok && isCreate && Array.isArray(value.items) && value.items.length > 0) {
      const [first, ...rest] = value.items as Record<string, unknown>[];
      echoed.itemRefused += 1;
      value.items = [{ index: first!.index, error: { ...echoError(key), status: 400 } }, ...rest];
    }
    if (value && upstream.ok && req.method === 'GET' && /\/predictions\/\d+$/.test(path)) {
      echoed.failedReads += 1;
      Object.assign(value, { status: 'failed', output_data: { urls: [] }, error: echoError(key) });
    }
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' });
    res.end(value ? JSON.stringify(value) : text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    echoed,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function forwardedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['authorization', 'content-type', 'idempotency-key', 'accept']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}
