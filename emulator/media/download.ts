/**
 * Sends a CDN file, with the download faults: a slow download pauses halfway; a truncated one
 * announces the full Content-Length, sends half and closes the connection, as a broken transfer
 * looks to a client; a trickling one sends a byte every few seconds (a CDN node gone bad).
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
  if (faults.hit('trickleDownloadRate')) return trickle(reply, body, contentType, faults.trickleByteEveryMs);
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

/** One byte every `everyMs` until the client hangs up (or, in time, the whole body). */
function trickle(reply: FastifyReply, body: Buffer, contentType: string, everyMs: number): FastifyReply {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { 'content-type': contentType, 'content-length': String(body.length) });
  let sent = 0;
  const drip = setInterval(() => {
    if (raw.destroyed) return clearInterval(drip);
    raw.write(body.subarray(sent, sent + 1));
    sent++;
    if (sent >= body.length) {
      clearInterval(drip);
      raw.end();
    }
  }, everyMs);
  raw.on('close', () => clearInterval(drip));
  return reply;
}
