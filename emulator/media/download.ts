/**
 * Sends a CDN file, with the download faults: a slow download pauses halfway; a truncated one
 * announces the full Content-Length, sends half and closes the connection, as a broken transfer
 * looks to a client.
 */
import type { FastifyReply } from 'fastify';
import type { FaultInjector } from '../faults.ts';

export function sendDownload(
  reply: FastifyReply,
  faults: FaultInjector,
  body: Buffer,
  contentType: string,
): FastifyReply {
  const truncate = faults.hit('truncateDownloadRate');
  const pauseMs = faults.slowDownloadMs;
  if (!truncate && pauseMs === 0) {
    return reply.header('content-type', contentType).send(body);
  }
  reply.hijack();
  const raw = reply.raw;
  // Hijacked: the headers set on the reply (nosniff, rate limits) are written here or not at all.
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) raw.setHeader(name, value);
  }
  raw.writeHead(200, { 'content-type': contentType, 'content-length': String(body.length) });
  const half = Math.floor(body.length / 2);
  raw.write(body.subarray(0, half), () => {
    const rest = () => {
      if (truncate) raw.destroy();
      else raw.end(body.subarray(half));
    };
    if (pauseMs > 0) setTimeout(rest, pauseMs);
    else rest();
  });
  return reply;
}
