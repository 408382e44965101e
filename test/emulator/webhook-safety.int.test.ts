/**
 * What a webhook receiver cannot make the emulator do: follow a redirect to another host (the
 * signed payload would go wherever the receiver says), or keep posting after the endpoint is
 * deleted.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createBody, I1, useEmulator } from './helpers.ts';

/** A loopback server that counts requests and answers each with `respond`. */
async function server(respond: (response: import('node:http').ServerResponse) => void) {
  let hits = 0;
  const http: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      hits++;
      respond(response);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

/** Polls `done` for at most `ms` (time scale 0 makes every retry immediate). */
async function within(ms: number, done: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('webhook delivery safety', () => {
  const { call } = useEmulator();
  const servers: Array<{ close: () => Promise<void> }> = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it('never follows a redirect: a 3xx is a failed attempt, retried at the registered URL', async () => {
    const elsewhere = await server((response) => response.writeHead(204).end());
    const redirecting = await server((response) =>
      response.writeHead(307, { location: elsewhere.url.replace('/hook', '/stolen') }).end(),
    );
    servers.push(elsewhere, redirecting);
    const hook = await call('POST', '/webhooks', { url: redirecting.url });
    await call('POST', I1, createBody({ prompt: 'redirected' }));
    await within(3000, () => redirecting.hits() >= 6 || elsewhere.hits() > 0);
    expect(elsewhere.hits()).toBe(0);
    expect(redirecting.hits()).toBe(6);
    await call('DELETE', `/webhooks/${hook.body.id}`);
  });

  it('deletes a webhook: gone from the list, no delivery after, a second delete is 404', async () => {
    const receiver = await server((response) => response.writeHead(204).end());
    servers.push(receiver);
    const hook = (await call('POST', '/webhooks', { url: receiver.url })).body;
    const deleted = await call('DELETE', `/webhooks/${hook.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: hook.id, deleted: true });
    expect((await call('GET', '/webhooks')).body.data.map((w: { id: string }) => w.id)).not.toContain(
      hook.id,
    );
    const created = await call('POST', I1, createBody({ prompt: 'nobody listens' }));
    await within(300, () => receiver.hits() > 0);
    expect(created.status).toBe(200);
    expect(receiver.hits()).toBe(0);
    const again = await call('DELETE', `/webhooks/${hook.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('NOT_FOUND');
  });
});
