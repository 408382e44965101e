import { afterEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../api/client/index.ts';
import { type Behaviour, caught, collect, type FakeService, json, startFakeService } from './fake-service.ts';

let service: FakeService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

const file = (n: number) => ({
  id: `file_${n}`,
  filename: `f${n}.png`,
  content_type: 'image/png',
  bytes: n,
  url: `http://cdn/f${n}`,
  created_at: '2025-01-01T00:00:00Z',
});

/** Serves `total` files in pages of the requested limit, with cursors "c<offset>". */
function pagedFiles(total: number, options: { omitHasMore?: boolean } = {}): Behaviour {
  return (request, response) => {
    const url = new URL(request.url, 'http://x');
    const limit = Number(url.searchParams.get('limit'));
    const offset = Number(url.searchParams.get('cursor')?.slice(1) ?? 0);
    const end = Math.min(offset + limit, total);
    const data = Array.from({ length: end - offset }, (_, i) => file(offset + i));
    const more = end < total;
    json(200, {
      data,
      ...(options.omitHasMore ? {} : { has_more: more }),
      next_cursor: more ? `c${end}` : null,
    })(request, response);
  };
}

describe('cursor pagination', () => {
  it('iterates every item across pages, asking for the default 25 per page', async () => {
    service = await startFakeService(pagedFiles(60));
    const files = await collect(service.client().files.list());
    expect(files.map((f) => f.id)).toEqual(Array.from({ length: 60 }, (_, i) => `file_${i}`));
    const queries = service.received.map((r) => new URL(r.url, 'http://x').searchParams);
    expect(queries.map((q) => [q.get('limit'), q.get('cursor')])).toEqual([
      ['25', null],
      ['25', 'c25'],
      ['25', 'c50'],
    ]);
  });

  it('caps the page size at 100', async () => {
    service = await startFakeService(pagedFiles(150));
    const files = await collect(service.client().files.list({ limit: 500 }));
    expect(files).toHaveLength(150);
    expect(service.received.map((r) => new URL(r.url, 'http://x').searchParams.get('limit'))).toEqual([
      '100',
      '100',
    ]);
  });

  it('follows next_cursor when the page omits has_more', async () => {
    service = await startFakeService(pagedFiles(30, { omitHasMore: true }));
    expect(await collect(service.client().files.list({ limit: 10 }))).toHaveLength(30);
  });

  it('fetches lazily: stopping early requests no further page', async () => {
    service = await startFakeService(pagedFiles(100));
    for await (const item of service.client().files.list({ limit: 10 })) {
      if (item.id === 'file_3') break;
    }
    expect(service.received).toHaveLength(1);
  });

  it('a server that returns the same cursor forever is an error, not an endless loop', async () => {
    service = await startFakeService(json(200, { data: [file(1)], has_more: true, next_cursor: 'again' }));
    const error = await caught(() => collect(service!.client().files.list()));
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE', retryable: false });
  });

  it('search sends its filters as query parameters and pages like every list', async () => {
    service = await startFakeService(
      json(200, {
        data: [{ type: 'models', id: 'mf-i1/i1-base', title: 'I1' }],
        has_more: false,
        next_cursor: null,
      }),
    );
    const results = await collect(
      service
        .client()
        .search('cat', { type: 'models', model: 'I1', createdAfter: '2025-01-01T00:00:00Z', limit: 5 }),
    );
    expect(results).toEqual([{ type: 'models', id: 'mf-i1/i1-base', title: 'I1' }]);
    const query = Object.fromEntries(new URL(service.received[0]!.url, 'http://x').searchParams);
    expect(query).toEqual({
      q: 'cat',
      type: 'models',
      model: 'mf-i1/i1-base',
      created_after: '2025-01-01T00:00:00Z',
      limit: '5',
    });
  });
});
