/**
 * A tiny HTTP server on 127.0.0.1:0 that answers each request with a scripted behaviour, so unit
 * tests can make the client meet refusals, resets, hangs and odd replies over a real socket.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServiceClient, type ServiceClient } from '../../api/client/index.ts';

export const TEST_KEY = 'sk_test_SECRET_do_not_leak_42';

export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export type Behaviour = (request: Received, response: ServerResponse) => void;

export interface FakeService {
  readonly baseUrl: string;
  readonly received: Received[];
  client(options?: { timeoutMs?: number }): ServiceClient;
  close(): Promise<void>;
}

export async function startFakeService(behaviour: Behaviour): Promise<FakeService> {
  const received: Received[] = [];
  const clients: ServiceClient[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      behaviour(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  return {
    baseUrl,
    received,
    client(options = {}) {
      const client = createServiceClient({
        baseUrl,
        apiKey: TEST_KEY,
        timeoutMs: options.timeoutMs ?? 5_000,
      });
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Behaviour {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
}

/** A prediction record in the create/get form of service-spec.md part 2.2. */
export function record(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 42,
    user_id: 'user_1',
    model: 'mf-i1',
    model_version: 'i1-base',
    input_parameters: {},
    output_data: { urls: [] },
    status: 'processing',
    credits_used: '0.12',
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** Collects an async iterable, for assertions. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Runs `action` and returns what it threw (failing the test if it did not throw). */
export async function caught(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, and it succeeded');
}
