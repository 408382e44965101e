/**
 * The prediction stream, `GET /v1/predictions/:id/stream` (format not shown; our choice):
 * Server-Sent Events, one `event: status` whose `data` is the prediction record each time the
 * status changes (the current one first), then `event: done` after a terminal state. Comments
 * (`: ping`) keep the connection alive. Clients must ignore events they do not know.
 */
import { z } from 'zod';

export const STREAM_EVENTS = { status: 'status', done: 'done' } as const;
export const STREAM_PING_MS = 15_000;

/** `data` of the `done` event: which prediction ended, and how. */
export const StreamDone = z.looseObject({ id: z.union([z.number().int(), z.string()]), status: z.string() });
export type StreamDone = z.infer<typeof StreamDone>;
