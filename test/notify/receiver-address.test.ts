/**
 * Notice receivers under the download link policy (activities/notify/receiver-address.ts): never
 * the metadata endpoint, "this host" or a reserved address, however the host is written or what it
 * resolves to; a loopback or private receiver only when the service is at one too, or when the
 * worker allows local receivers. Refused before anything is sent, and for good.
 */
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { notifyActivities } from '../../activities/notify/index.ts';
import type { NotifyRequest } from '../../contract/notify.ts';

const DNS: Record<string, string[]> = {
  'api.example.com': ['203.0.113.5'],
  'hooks.example.com': ['198.51.100.7'],
  'metadata.example.com': ['169.254.169.254'],
  'ci.internal': ['10.0.0.5'],
};
const lookup = async (host: string) => DNS[host] ?? [];

const request = (url: string): NotifyRequest => ({
  id: 'msg_1',
  campaign: 'lamps',
  at: '2026-11-27T06:00:00.000Z',
  target: { kind: 'slack', url, urlEnv: null, secretEnv: null, events: null },
  reviewUrl: null,
  notice: {
    type: 'campaign.completed',
    summary: { steps: [], spent: 0, budget: null },
  },
});

/** What one delivery did: the URLs fetched, and the failure it ended with (null: delivered). */
async function deliver(url: string, env: Record<string, string> = {}) {
  const fetched: string[] = [];
  const fetch = async (target: string | URL | Request) => {
    fetched.push(String(target));
    return new Response(null, { status: 200 });
  };
  const { deliverNotice } = notifyActivities({
    env: { MEDIAFLOW_API_URL: 'https://api.example.com/v1', ...env },
    fetch: fetch as typeof globalThis.fetch,
    lookup,
  });
  const failure = await deliverNotice(request(url)).then(
    () => null,
    (error: unknown) => error,
  );
  return { fetched, failure: failure as ApplicationFailure | null };
}

describe('where notices may go', () => {
  it('a public receiver gets them', async () => {
    expect(await deliver('https://hooks.example.com/n')).toEqual({
      fetched: ['https://hooks.example.com/n'],
      failure: null,
    });
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://metadata.example.com/hook', 'link-local'],
    ['http://[::ffff:169.254.169.254]/hook', 'link-local'],
    ['http://0.0.0.0:8080/hook', 'reserved'],
    ['http://0x0:8080/hook', 'reserved'],
    ['http://[::]:8080/hook', 'reserved'],
  ])('%s is refused for good, even with local receivers allowed', async (url, kind) => {
    const { fetched, failure } = await deliver(url, { MEDIAFLOW_NOTIFY_ALLOW_LOCAL: '1' });
    expect(fetched).toEqual([]);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure!.nonRetryable).toBe(true);
    expect(failure!.message).toContain(`a ${kind} address: notices are not sent there`);
  });

  it.each(['http://127.0.0.1:9000/hook', 'http://ci.internal/hook', 'http://192.168.1.4/hook'])(
    '%s, local while the service is not, only with MEDIAFLOW_NOTIFY_ALLOW_LOCAL=1',
    async (url) => {
      const refused = await deliver(url);
      expect(refused.fetched).toEqual([]);
      expect(refused.failure!.message).toContain('set MEDIAFLOW_NOTIFY_ALLOW_LOCAL=1 on the worker');
      expect((await deliver(url, { MEDIAFLOW_NOTIFY_ALLOW_LOCAL: '1' })).failure).toBeNull();
    },
  );

  it('a loopback receiver beside a loopback service (the emulator) needs no allowance', async () => {
    const { failure } = await deliver('http://127.0.0.1:9000/hook', {
      MEDIAFLOW_API_URL: 'http://127.0.0.1:8000/v1',
    });
    expect(failure).toBeNull();
  });
});

describe('a setting the worker lacks', () => {
  it('is named with the process that lacks it', async () => {
    const { deliverNotice } = notifyActivities({
      env: {},
      lookup,
      processName: 'mediaflow review (pid 7 on studio-2)',
    });
    const target = {
      kind: 'standard' as const,
      url: 'https://hooks.example.com/n',
      urlEnv: null,
      secretEnv: 'NC_HOOK_SECRET',
      events: null,
    };
    const failure = await deliverNotice({ ...request('https://hooks.example.com/n'), target }).catch(
      (error: unknown) => error,
    );
    expect((failure as ApplicationFailure).message).toBe(
      'signing secret: environment variable NC_HOOK_SECRET is not set on the worker in mediaflow review (pid 7 on studio-2)',
    );
  });
});
