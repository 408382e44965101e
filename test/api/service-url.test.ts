import { describe, expect, it } from 'vitest';
import { ConfigurationError, createServiceClient } from '../../api/client/index.ts';
import {
  checkServiceUrl,
  cleartextGuard,
  linkPolicyFor,
  serviceUrlProblem,
} from '../../api/client/service-address.ts';

describe('the service URL', () => {
  it.each<[string, string[], boolean]>([
    ['https://api.example.com/v1', ['93.184.216.34'], true],
    ['http://127.0.0.1:4010/v1', ['127.0.0.1'], true],
    ['http://localhost:4010/v1', ['::1', '127.0.0.1'], true],
    ['http://emulator:4010/v1', ['172.18.0.3'], true],
    ['http://api.example.com/v1', ['93.184.216.34'], false],
    ['http://api.example.com/v1', ['10.0.0.2', '93.184.216.34'], false],
    ['http://metadata/v1', ['169.254.169.254'], false],
    ['http://unresolved.example/v1', [], true],
  ])('%s at %j is accepted: %s', (url, addresses, accepted) => {
    const problem = serviceUrlProblem(url, addresses);
    expect(problem === null).toBe(accepted);
    if (problem) {
      expect(problem).not.toContain('\n');
      expect(problem).toContain('use https://');
    }
  });

  it('resolves a host name before judging it; an IP literal is its own answer', async () => {
    const lookup = async (host: string) => (host === 'emulator' ? ['172.18.0.3'] : ['203.0.113.9']);
    expect(await checkServiceUrl('http://emulator:4010/v1', lookup)).toBeNull();
    expect(await checkServiceUrl('http://api.example.com/v1', lookup)).toMatch(/plain http to 203.0.113.9/);
    expect(await checkServiceUrl('http://198.51.100.7/v1', lookup)).toMatch(/plain http to 198.51.100.7/);
    expect(await checkServiceUrl('https://api.example.com/v1', lookup)).toBeNull();
  });

  it('the link policy allows what the service is at, and nothing for a public service', async () => {
    const lookup = async () => ['10.0.0.5'];
    expect([...(await linkPolicyFor('http://svc.internal/v1', {}, lookup)).allowed]).toEqual(['private']);
    expect([...(await linkPolicyFor('https://203.0.113.9/v1', {}, lookup)).allowed]).toEqual([]);
  });
});

describe('refusing plain http to a public service', () => {
  it('refuses a public IP literal when the client is built, before anything is sent', () => {
    expect(() => createServiceClient({ baseUrl: 'http://203.0.113.7/v1', apiKey: 'k' })).toThrow(
      /plain http to 203.0.113.7, .*use https:\/\/203.0.113.7\/v1$/,
    );
    expect(() => createServiceClient({ baseUrl: 'http://203.0.113.7/v1', apiKey: 'k' })).toThrow(
      ConfigurationError, // the CLI says it in one line, whichever command built the client
    );
    expect(() => createServiceClient({ baseUrl: 'http://127.0.0.1:4010/v1', apiKey: 'k' })).not.toThrow();
    expect(() => createServiceClient({ baseUrl: 'https://203.0.113.7/v1', apiKey: 'k' })).not.toThrow();
  });

  it('refuses a host name that resolves to a public address before the first request (the worker)', async () => {
    const publicHost = cleartextGuard('http://api.example.com/v1', async () => ['203.0.113.9']);
    await expect(publicHost()).rejects.toMatchObject({ code: 'INSECURE_SERVICE_URL', retryable: false });
    await expect(
      cleartextGuard('http://emulator:4010/v1', async () => ['172.18.0.3'])(),
    ).resolves.toBeUndefined();
    const never = async (): Promise<string[]> => {
      throw new Error('https needs no lookup');
    };
    await expect(cleartextGuard('https://api.example.com/v1', never)()).resolves.toBeUndefined();
  });
});
