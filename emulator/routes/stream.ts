/**
 * `GET /v1/predictions/:id/stream`: Server-Sent Events (format not shown in the spec; ours, as
 * api/wire/events.ts describes). The current record first as `event: status`, one more on each
 * change, then `event: done` after a terminal state and the stream ends. `: ping` comments every
 * 15 s keep proxies from closing a quiet stream. During a full outage (`serverErrorRate` 1) a
 * stream opened before it breaks at its next change instead of delivering it.
 */
import type { FastifyInstance } from 'fastify';
import { STREAM_EVENTS, STREAM_PING_MS, TERMINAL_STATUSES } from '../../api/wire/index.ts';
import type { EmulatorContext } from '../context.ts';
import { predictionToWire, type StoredPrediction } from '../predictions/prediction.ts';
import { predictionById } from './lookup.ts';

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function streamRoutes(app: FastifyInstance, context: EmulatorContext): void {
  app.get<{ Params: { id: string } }>('/v1/predictions/:id/stream', async (request, reply) => {
    const prediction = predictionById(context, request.params.id);
    const raw = reply.raw;
    reply.hijack();
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const send = (current: StoredPrediction): boolean => {
      raw.write(frame(STREAM_EVENTS.status, predictionToWire(current, context.links(current, 'delivered'))));
      if (!TERMINAL_STATUSES.has(current.status)) return false;
      raw.end(frame(STREAM_EVENTS.done, { id: current.id, status: current.status }));
      return true;
    };
    if (send(prediction)) return;
    const ping = setInterval(() => raw.write(': ping\n\n'), STREAM_PING_MS);
    const unsubscribe = context.lifecycle.subscribe(prediction.id, (changed) => {
      // A service that is down does not push through a stream opened before: the connection breaks
      // and the client is left to ask again (and meet the outage).
      if (context.faults.down) {
        raw.destroy();
        return stop();
      }
      if (send(changed)) stop();
    });
    const stop = () => {
      clearInterval(ping);
      unsubscribe();
    };
    raw.on('close', stop);
  });
}
