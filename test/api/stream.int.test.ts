import { afterEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../api/client/index.ts';
import { sseMessages } from '../../api/client/prediction-stream.ts';
import { caught, collect, type FakeService, record, startFakeService } from './fake-service.ts';

let service: FakeService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function* chunks(parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* parts;
}

/** Splits bytes into pieces of `size`, cutting through lines and multi-byte characters. */
function split(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

const status = (overrides: Record<string, unknown>) =>
  `event: status\ndata: ${JSON.stringify(record(overrides))}\n\n`;

describe('SSE parsing', () => {
  it('reassembles events split anywhere, including inside a UTF-8 character, and skips comments', async () => {
    const text = ': ping\n\nevent: status\ndata: {"prompt":"café ☕"}\n\n: ping\n\nevent: done\ndata: {}\n\n';
    for (const size of [1, 2, 3, 7, 1000]) {
      const messages = await collect(sseMessages(chunks(split(text, size))));
      expect(messages.map((m) => [m.event, m.data])).toEqual([
        ['status', '{"prompt":"café ☕"}'],
        ['done', '{}'],
      ]);
    }
  });
});

describe('predictions.stream', () => {
  function serveStream(body: string, options: { end?: boolean } = {}) {
    return startFakeService((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.write(body);
      if (options.end !== false) response.end();
    });
  }

  it('yields each status and ends at the terminal one, ignoring unknown events and comments', async () => {
    service = await serveStream(
      [
        status({ status: 'processing' }),
        ': ping\n\n',
        'event: progress\ndata: {"percent": 50}\n\n',
        status({ status: 'succeeded', output_data: { urls: ['http://cdn/a.png'] } }),
      ].join(''),
      // The server keeps the connection open: the client must stop by itself after the terminal status.
      { end: false },
    );
    const seen = await collect(service.client().predictions.stream('42'));
    expect(seen.map((p) => p.status)).toEqual(['processing', 'succeeded']);
    expect(seen[1]!.outputs).toEqual(['http://cdn/a.png']);
    const request = service.received[0]!;
    expect(request.url).toBe('/v1/predictions/42/stream');
    expect(request.headers.accept).toContain('text/event-stream');
  });

  it('reads the job form of the record in status events', async () => {
    service = await serveStream(
      `event: status\ndata: ${JSON.stringify({ job_id: 'j1', status: 'succeeded', output: ['u'] })}\n\n`,
    );
    expect(await collect(service.client().predictions.stream('j1'))).toMatchObject([
      { id: 'j1', outputs: ['u'] },
    ]);
  });

  it('a stream that ends before a terminal status throws a retryable error after what it saw', async () => {
    service = await serveStream(status({ status: 'processing' }));
    const seen: string[] = [];
    const error = await caught(async () => {
      for await (const prediction of service!.client().predictions.stream('42')) seen.push(prediction.status);
    });
    expect(seen).toEqual(['processing']);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ code: 'STREAM_ENDED_EARLY', retryable: true, maybeCreated: false });
  });

  it('a connection dropped mid-stream is a retryable network error', async () => {
    service = await startFakeService((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(status({ status: 'processing' }));
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const error = await caught(() => collect(service!.client().predictions.stream('42')));
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ retryable: true, status: null });
  });

  it('a 404 on opening the stream is the same ServiceError as any call', async () => {
    service = await startFakeService((_request, response) => {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: { type: 'not_found_error', code: 'PREDICTION_NOT_FOUND', message: 'no such prediction' },
        }),
      );
    });
    const error = await caught(() => collect(service!.client().predictions.stream('999')));
    expect(error).toMatchObject({ status: 404, code: 'PREDICTION_NOT_FOUND', retryable: false });
  });
});
