/**
 * Cursor pagination of every list (service-spec.md part 2.3): `limit` 1..100 (default 25) and an
 * opaque cursor naming the last item seen (`c<seq>`, CURSOR_PATTERN), so items created while a client pages never shift
 * or repeat the pages it has not read yet.
 */
import { CURSOR_PATTERN, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../../api/wire/index.ts';
import { ApiError } from './errors.ts';

export interface PageQuery {
  readonly limit: number;
  /** Sequence number of the last item of the previous page; 0 = from the start. */
  readonly after: number;
}

export interface PageBody<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export function parsePageQuery(query: Record<string, unknown>): PageQuery {
  const { limit, cursor } = query;
  let parsedLimit = PAGE_LIMIT_DEFAULT;
  if (limit !== undefined) {
    parsedLimit = typeof limit === 'string' && /^\d{1,4}$/.test(limit) ? Number(limit) : Number.NaN;
    if (!(parsedLimit >= 1 && parsedLimit <= PAGE_LIMIT_MAX)) {
      throw new ApiError('INVALID_PARAMETER', `limit must be an integer from 1 to ${PAGE_LIMIT_MAX}`, {
        param: 'limit',
      });
    }
  }
  return { limit: parsedLimit, after: cursor === undefined ? 0 : decodeCursor(cursor) };
}

function decodeCursor(cursor: unknown): number {
  const match = typeof cursor === 'string' ? CURSOR_PATTERN.exec(cursor) : null;
  if (!match) {
    throw new ApiError(
      'INVALID_CURSOR',
      'cursor is not one this service returned; take next_cursor from a page',
      { param: 'cursor' },
    );
  }
  return Number(match[1]);
}

function encodeCursor(seq: number): string {
  return `c${seq}`;
}

/** One page of `items`, which must be sorted by ascending `seqOf`. */
export function paginate<T, R>(
  items: readonly T[],
  seqOf: (item: T) => number,
  page: PageQuery,
  render: (item: T) => R,
): PageBody<R> {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (seqOf(items[mid]!) <= page.after) low = mid + 1;
    else high = mid;
  }
  const slice = items.slice(low, low + page.limit);
  const hasMore = low + page.limit < items.length;
  const last = slice.at(-1);
  return {
    data: slice.map(render),
    has_more: hasMore,
    next_cursor: hasMore && last !== undefined ? encodeCursor(seqOf(last)) : null,
  };
}
