import { EventSourceParserStream } from 'eventsource-parser/stream';
import { describe, expect, it } from 'vitest';
import { createBody, I1, type Json, useEmulator } from './helpers.ts';

async function readStream(url: string, key: string, onFirst?: () => Promise<void>) {
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
  });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: Array<{ event: string | undefined; data: Json }> = [];
  const reader = response
    .body!.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    events.push({ event: value.event, data: JSON.parse(value.data) });
    if (events.length === 1) await onFirst?.();
  }
}

describe('SSE stream', () => {
  const { call, emulator } = useEmulator({ timeScale: 1, latencyMs: 60_000 });

  it('sends the current state first, each change, then done, and ends', async () => {
    const created = await call('POST', I1, createBody({ prompt: 'watched' }));
    const { baseUrl, apiKey } = emulator();
    const events = await readStream(`${baseUrl}/predictions/${created.body.id}/stream`, apiKey, async () => {
      await call('POST', `/predictions/${created.body.id}/cancel`);
    });
    expect(events.map((e) => [e.event, e.data.status])).toEqual([
      ['status', 'processing'],
      ['status', 'canceled'],
      ['done', 'canceled'],
    ]);
    expect(events[0]!.data.id).toBe(created.body.id);
  });

  it('ends at once for a prediction already settled', async () => {
    const created = await call('POST', I1, createBody({ prompt: 'over' }));
    await call('POST', `/predictions/${created.body.id}/cancel`);
    const events = await readStream(
      `${emulator().baseUrl}/predictions/${created.body.id}/stream`,
      emulator().apiKey,
    );
    expect(events.map((e) => e.event)).toEqual(['status', 'done']);
  });
});
