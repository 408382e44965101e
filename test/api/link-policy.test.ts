import { describe, expect, it } from 'vitest';
import {
  type AddressClass,
  addressRefusal,
  allowanceFor,
  classifyAddress,
  DEFAULT_MAX_DOWNLOAD_BYTES,
  DownloadRefused,
  type LinkPolicy,
  linkRefusal,
  maxDownloadBytes,
  redactLink,
  replyDecision,
  sizeRefusal,
} from '../../api/client/link-policy.ts';

const policy = (allowed: AddressClass[] = [], maxBytes = 1000): LinkPolicy => ({
  allowed: new Set(allowed),
  maxBytes,
  maxRedirects: 5,
});

describe('classifyAddress', () => {
  it.each<[string, AddressClass]>([
    ['93.184.216.34', 'public'],
    ['2606:2800:220:1::1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['0.0.0.0', 'reserved'],
    ['::', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['ff02::1', 'reserved'],
    ['not-an-address', 'reserved'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('a service on loopback or a private network allows its own class, never more', () => {
    expect([...allowanceFor(['127.0.0.1', '::1'])]).toEqual(['loopback']);
    expect([...allowanceFor(['10.0.0.5'])]).toEqual(['private']);
    expect([...allowanceFor(['93.184.216.34'])]).toEqual([]);
    expect([...allowanceFor(['0.0.0.0'])]).toEqual([]);
  });
});

describe('linkRefusal', () => {
  it.each<[string, AddressClass[], string | null]>([
    ['https://cdn.example.com/a.png', [], null],
    ['http://cdn.example.com/a.png', [], null],
    ['ftp://cdn.example.com/a.png', [], 'scheme'],
    ['file:///etc/passwd', [], 'scheme'],
    ['data:image/png;base64,AAAA', [], 'scheme'],
    ['javascript:alert(1)', [], 'scheme'],
    ['not a url', [], 'scheme'],
    ['http://127.0.0.1:4010/cdn/a.png', [], 'address'],
    ['http://127.0.0.1:4010/cdn/a.png', ['loopback'], null],
    ['http://[::1]/a.png', [], 'address'],
    ['http://[::ffff:127.0.0.1]/a.png', [], 'address'],
    ['http://169.254.169.254/latest/meta-data/', ['loopback'], 'address'],
    ['http://169.254.169.254/latest/meta-data/', ['private'], 'address'],
    ['http://10.0.0.7/a.png', ['private'], null],
    ['http://10.0.0.7/a.png', ['loopback'], 'address'],
    ['http://0.0.0.0:4010/a.png', ['loopback'], 'address'],
    ['https://93.184.216.34/a.png', [], null],
  ])('%s with %j allowed: %s', (link, allowed, reason) => {
    const refused = linkRefusal(link, policy(allowed));
    expect(refused?.reason ?? null).toBe(reason);
    if (refused) expect(refused).toBeInstanceOf(DownloadRefused);
  });
});

describe('link-local is never fetched, whatever the service is at', () => {
  // The service's own addresses: a link-local one (a host on a bare network, an attacker's
  // MEDIAFLOW_API_URL) must not open 169.254/16 or fe80::/10 to its links.
  const services: string[][] = [
    ['169.254.10.1'],
    ['169.254.169.254'],
    ['fe80::1'],
    ['127.0.0.1'],
    ['10.0.0.5'],
    ['93.184.216.34'],
    ['169.254.10.1', '10.0.0.5', '127.0.0.1'],
  ];
  const targets = [
    '169.254.169.254',
    '169.254.0.1',
    '169.254.255.255',
    'fe80::1',
    'febf:ffff::1',
    'fe80::a9fe:a9fe%eth0',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
  ];
  const rows = services.flatMap((service) => targets.map((target) => [service, target] as const));

  it.each(rows)('a service at %j: %s is refused', (service, target) => {
    const granted = { allowed: allowanceFor(service), maxBytes: 1000, maxRedirects: 5 };
    expect(granted.allowed.has('link-local')).toBe(false);
    expect(addressRefusal(target, 'the link', granted)?.reason).toBe('address');
    const literal = target.includes(':') ? `[${target.replace(/%.*$/, '')}]` : target;
    expect(linkRefusal(`http://${literal}/latest/meta-data/`, granted)?.reason).toBe('address');
  });

  it('a policy that lists link-local by hand still refuses it', () => {
    expect(addressRefusal('169.254.169.254', 'the link', policy(['link-local']))?.reason).toBe('address');
    expect(addressRefusal('fe80::1', 'the link', policy(['link-local']))?.reason).toBe('address');
  });

  it('the edges of the ranges stay what they are', () => {
    expect(classifyAddress('169.253.255.255')).toBe('public');
    expect(classifyAddress('169.255.0.0')).toBe('public');
    expect(classifyAddress('fec0::1')).toBe('public');
  });
});

describe('replyDecision', () => {
  const link = 'https://cdn.example.com/a.png?token=secret';
  it.each<[number, string | undefined, number, string, string | null]>([
    [200, undefined, 0, 'ok', null],
    [302, 'https://storage.example.com/a.png?sig=1', 0, 'follow', null],
    [301, '/elsewhere/a.png', 4, 'follow', null],
    [307, 'https://storage.example.com/a.png', 5, 'refuse', 'too_many_redirects'],
    [302, 'ftp://storage.example.com/a.png', 0, 'refuse', 'scheme'],
    [303, 'http://169.254.169.254/', 0, 'refuse', 'address'],
    [308, 'http://[::ffff:a9fe:a9fe]/', 0, 'refuse', 'address'],
    [404, undefined, 0, 'refuse', 'gone'],
    [410, undefined, 1, 'refuse', 'gone'],
    [503, undefined, 0, 'fail', null],
    [429, undefined, 0, 'fail', null],
    [403, undefined, 0, 'fail', null],
    [302, undefined, 0, 'fail', null],
  ])('HTTP %i to %s at hop %i: %s %s', (status, location, hop, kind, reason) => {
    const decision = replyDecision(status, location, link, hop, policy());
    expect(decision.kind).toBe(kind);
    if (decision.kind === 'refuse') {
      expect(decision.error.reason).toBe(reason);
      expect(decision.error.retryable).toBe(false);
      expect(decision.error.message).not.toContain('secret');
    }
    if (decision.kind === 'fail') expect(decision.retryable).toBe(status >= 500 || status === 429);
  });

  it('resolves a relative Location against the hop it came from', () => {
    expect(replyDecision(302, '../b.png', 'https://cdn.example.com/x/a.png', 0, policy())).toEqual({
      kind: 'follow',
      url: 'https://cdn.example.com/b.png',
    });
  });
});

describe('sizes', () => {
  it.each([
    [999, null],
    [1000, null],
    [1001, 'too_large'],
  ])('%i bytes against a 1000-byte cap: %s', (bytes, reason) => {
    expect(sizeRefusal(bytes, 'https://cdn/a.png', policy([], 1000))?.reason ?? null).toBe(reason);
  });

  it.each<[string | undefined, number | string]>([
    [undefined, DEFAULT_MAX_DOWNLOAD_BYTES],
    ['', DEFAULT_MAX_DOWNLOAD_BYTES],
    ['1048576', 1048576],
    ['0', 'MEDIAFLOW_MAX_DOWNLOAD_BYTES must be'],
    ['2GB', 'MEDIAFLOW_MAX_DOWNLOAD_BYTES must be'],
    ['-5', 'MEDIAFLOW_MAX_DOWNLOAD_BYTES must be'],
  ])('MEDIAFLOW_MAX_DOWNLOAD_BYTES=%s', (value, expected) => {
    const read = () => maxDownloadBytes({ MEDIAFLOW_MAX_DOWNLOAD_BYTES: value });
    if (typeof expected === 'number') expect(read()).toBe(expected);
    else expect(read).toThrow(expected);
  });
});

describe('redactLink', () => {
  it.each([
    ['https://cdn.example.com/o/a.png?X-Amz-Signature=abc&exp=1', 'https://cdn.example.com/o/a.png'],
    ['https://user:pw@cdn.example.com:8443/a.mp4#t=1', 'https://cdn.example.com:8443/a.mp4'],
    ['http://127.0.0.1:4010/cdn/outputs/1.png', 'http://127.0.0.1:4010/cdn/outputs/1.png'],
    ['token=abc not a url', '(a link that is not a URL)'],
  ])('%s → %s', (link, shown) => {
    expect(redactLink(link)).toBe(shown);
  });
});
