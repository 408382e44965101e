/**
 * Cursor pagination (service-spec.md parts 2.3 and 8.1) as one async iterator for every list
 * endpoint: pages are fetched lazily, one at a time, as the caller iterates.
 */
import { z } from 'zod';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../wire/resources.ts';
import { invalidResponse } from './errors.ts';
import type { Call, Transport } from './transport.ts';

export interface ListOptions {
  /** Items per page: default 25, at most 100 (larger values are capped). */
  readonly limit?: number;
  readonly signal?: AbortSignal;
}

/**
 * Parsed loosely on purpose: `has_more` may be absent (then the cursor alone decides) and items are
 * handed to `parseItem`, which maps each wire form to what callers see.
 */
const RawPage = z.looseObject({
  data: z.array(z.unknown()),
  has_more: z.boolean().nullish(),
  next_cursor: z.string().nullish(),
});

export async function* paginate<T>(
  transport: Transport,
  call: Call,
  parseItem: (item: unknown) => T,
  options: ListOptions = {},
): AsyncGenerator<T> {
  const limit = Math.min(Math.max(1, Math.trunc(options.limit ?? PAGE_LIMIT_DEFAULT)), PAGE_LIMIT_MAX);
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const pageCall: Call = {
      ...call,
      query: { ...call.query, limit, cursor },
      ...(options.signal ? { signal: options.signal } : {}),
    };
    const page = await transport.parsed(pageCall, (value) => {
      const raw = RawPage.parse(value);
      return { items: raw.data.map(parseItem), hasMore: raw.has_more, next: raw.next_cursor };
    });
    yield* page.items;
    // A cursor is followed unless the page says explicitly that it is the last one.
    if (!page.next || page.hasMore === false) return;
    if (seen.has(page.next)) {
      throw invalidResponse(
        transport.context(call),
        `the cursor ${JSON.stringify(page.next)} came back twice`,
      );
    }
    seen.add(page.next);
    cursor = page.next;
  }
}
