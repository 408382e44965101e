/**
 * What an output link may be, decided in one place by pure functions (no I/O: DNS answers and
 * HTTP replies are handed in), so every rule is a row in a table test (test/api/link-policy.test.ts).
 * activities/download.ts applies these decisions to each hop of a download.
 *
 * Why: the service hands back links we then fetch from inside the worker's network. Without these
 * rules a link (or a redirect) could read the cloud metadata endpoint or an internal admin page,
 * fill the disk, or put a signed token into Temporal history and logs.
 */
import { BlockList, isIP } from 'node:net';
import { ConfigurationError } from './configuration-error.ts';
import { ServiceError } from './errors.ts';

/** Where an address routes. Only `public` is fetched unless the service itself is elsewhere. */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'reserved';

export type RefusalReason = 'scheme' | 'address' | 'too_large' | 'too_many_redirects' | 'gone';

/**
 * A download refused for good: retrying cannot change the answer. It is a ServiceError with
 * `retryable: false`, so callers that already fail a job on a permanent ServiceError do so, and a
 * failure policy can tell the cases apart by `reason`. Its message only ever holds redacted links.
 */
export class DownloadRefused extends ServiceError {
  readonly reason: RefusalReason;

  constructor(reason: RefusalReason, message: string, status: number | null = null) {
    super({ message, status, type: 'download_refused', code: 'DOWNLOAD_REFUSED', retryable: false });
    this.reason = reason;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), reason: this.reason };
  }
}

export interface LinkPolicy {
  /** Non-public address classes the service itself is at (the emulator, a self-hosted deployment). */
  readonly allowed: ReadonlySet<AddressClass>;
  readonly maxBytes: number;
  readonly maxRedirects: number;
}

export const MAX_REDIRECTS = 5;
/** Far above any image or video a model makes, far below a full disk. */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3;

const RANGES: Record<Exclude<AddressClass, 'public'>, readonly (readonly [string, number])[]> = {
  loopback: [
    ['127.0.0.0', 8],
    ['::1', 128],
  ],
  // RFC 1918, carrier-grade NAT (RFC 6598) and IPv6 unique local addresses.
  private: [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['100.64.0.0', 10],
    ['fc00::', 7],
  ],
  // 169.254.169.254 is the cloud metadata endpoint: the classic target of a forged link.
  'link-local': [
    ['169.254.0.0', 16],
    ['fe80::', 10],
  ],
  // "This host" (0.0.0.0 reaches localhost on Linux), multicast, broadcast and the reserved block.
  reserved: [
    ['0.0.0.0', 8],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
    ['::', 128],
    ['ff00::', 8],
  ],
};

const LISTS = Object.entries(RANGES).map(([kind, ranges]) => {
  const list = new BlockList();
  for (const [network, prefix] of ranges)
    list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  return [kind as AddressClass, list] as const;
});

/** An IP address's class; IPv4-mapped IPv6 (::ffff:10.0.0.1) counts as the IPv4 address it carries. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''); // URL brackets, zone ids
  const family = isIP(bare);
  if (family === 0) return 'reserved'; // not an address at all: never connect to it
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  const [value, type] = mapped ? [mapped[1]!, 'ipv4' as const] : [bare, family === 6 ? 'ipv6' : 'ipv4'];
  for (const [kind, list] of LISTS) if (list.check(value, type as 'ipv4' | 'ipv6')) return kind;
  return 'public';
}

/**
 * Classes no service address can open: link-local holds the cloud metadata endpoint
 * (169.254.169.254) and nothing a generation service legitimately serves
 * files from, so a service that is itself on a link-local address earns no exception.
 */
const NEVER_ALLOWED: ReadonlySet<AddressClass> = new Set(['public', 'reserved', 'link-local']);

/** The non-public classes a service at these addresses is in: its links may use them too. */
export function allowanceFor(serviceAddresses: readonly string[]): Set<AddressClass> {
  const classes = serviceAddresses.map(classifyAddress);
  return new Set(classes.filter((kind) => !NEVER_ALLOWED.has(kind)));
}

/**
 * Null when the address may be connected to, else the refusal. `what` names the link (redacted)
 * or, after DNS, the host name that resolved to `address`.
 */
export function addressRefusal(address: string, what: string, policy: LinkPolicy): DownloadRefused | null {
  const kind = classifyAddress(address);
  // Checked here too, so a policy built by hand with link-local in it still cannot reach one.
  if (kind === 'public' || (policy.allowed.has(kind) && !NEVER_ALLOWED.has(kind))) return null;
  return new DownloadRefused(
    'address',
    `download of ${what} refused: it leads to ${address}, a ${kind} address, and the service is not at one`,
  );
}

/** Scheme and (for IP literals, which skip DNS) address of one hop, before anything is sent. */
export function linkRefusal(link: string, policy: LinkPolicy): DownloadRefused | null {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return new DownloadRefused('scheme', `download refused: ${redactLink(link)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return new DownloadRefused(
      'scheme',
      `download of ${redactLink(link)} refused: only https and http links are fetched`,
    );
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? addressRefusal(host, redactLink(link), policy) : null;
}

export type ReplyDecision =
  | { readonly kind: 'ok' }
  | { readonly kind: 'follow'; readonly url: string }
  | { readonly kind: 'refuse'; readonly error: DownloadRefused }
  | { readonly kind: 'fail'; readonly retryable: boolean; readonly message: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * What to do with a reply to hop number `hop` (0 for the link itself). Real CDNs redirect to signed
 * storage URLs, so redirects are followed, each hop under the same policy, at most maxRedirects.
 */
export function replyDecision(
  status: number,
  location: string | undefined,
  link: string,
  hop: number,
  policy: LinkPolicy,
): ReplyDecision {
  const where = redactLink(link);
  if (status === 200) return { kind: 'ok' };
  if (REDIRECTS.has(status) && location) {
    if (hop >= policy.maxRedirects) {
      const message = `download of ${where} refused: more than ${policy.maxRedirects} redirects`;
      return { kind: 'refuse', error: new DownloadRefused('too_many_redirects', message, status) };
    }
    let next: string;
    try {
      next = new URL(location, link).href;
    } catch {
      const message = `download of ${where} refused: it redirects to something that is not a URL`;
      return { kind: 'refuse', error: new DownloadRefused('scheme', message, status) };
    }
    const refused = linkRefusal(next, policy);
    return refused ? { kind: 'refuse', error: refused } : { kind: 'follow', url: next };
  }
  if (status === 404 || status === 410) {
    // The link expired or the output was deleted: asking again gets the same answer.
    const message = `download of ${where} answered HTTP ${status}: the file is gone`;
    return { kind: 'refuse', error: new DownloadRefused('gone', message, status) };
  }
  const retryable = status >= 500 || status === 429 || status === 408;
  return { kind: 'fail', retryable, message: `download of ${where} answered HTTP ${status}` };
}

/** Checked against Content-Length before reading and against the running count while streaming. */
export function sizeRefusal(bytes: number, link: string, policy: LinkPolicy): DownloadRefused | null {
  if (bytes <= policy.maxBytes) return null;
  return new DownloadRefused(
    'too_large',
    `download of ${redactLink(link)} refused: larger than ${policy.maxBytes} bytes (MEDIAFLOW_MAX_DOWNLOAD_BYTES)`,
  );
}

/**
 * A link as it may appear in an error, a log or Temporal history: no query string or fragment
 * (signed tokens live there) and no user:password.
 */
export function redactLink(link: string): string {
  try {
    const url = new URL(link);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(a link that is not a URL)'; // the raw text may hold a token: say nothing of it
  }
}

/** MEDIAFLOW_MAX_DOWNLOAD_BYTES: a whole number of bytes, above 0. */
export function maxDownloadBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MEDIAFLOW_MAX_DOWNLOAD_BYTES?.trim();
  if (!raw) return DEFAULT_MAX_DOWNLOAD_BYTES;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError(
      `MEDIAFLOW_MAX_DOWNLOAD_BYTES must be a whole number of bytes above 0, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}
