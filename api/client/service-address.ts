/**
 * Where the service is, as far as safety cares: its address decides whether plain http may carry
 * the API key to it, and which non-public addresses its output links may use (link-policy.ts).
 * The decisions are pure (`serviceUrlProblem`, `allowanceFor`); resolving the host is the only I/O.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ServiceError } from './errors.ts';
import {
  type AddressClass,
  allowanceFor,
  classifyAddress,
  type LinkPolicy,
  MAX_REDIRECTS,
  maxDownloadBytes,
} from './link-policy.ts';

/** Every address a host name resolves to. */
export type Lookup = (hostname: string) => Promise<string[]>;

export const systemLookup: Lookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** With MEDIAFLOW_API_URL unset, the service is the embedded emulator, on loopback. */
export const EMBEDDED_SERVICE_URL = 'http://127.0.0.1/v1';

/** Plain http is accepted only where the API key cannot cross the internet. */
const CLEARTEXT_OK: ReadonlySet<AddressClass> = new Set(['loopback', 'private']);

/** The addresses of the URL's host; an IP literal is its own answer. */
export async function addressesOf(url: string, lookup: Lookup = systemLookup): Promise<string[]> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? [host] : lookup(host);
}

/**
 * One line saying why the service URL is refused and what to do, or null when it is fine.
 * `addresses` is what its host resolved to ([] when unknown: the connection will say more).
 */
export function serviceUrlProblem(baseUrl: string, addresses: readonly string[]): string | null {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:') return null;
  const exposed = addresses.filter((address) => !CLEARTEXT_OK.has(classifyAddress(address)));
  if (exposed.length === 0) return null;
  const secure = new URL(url.href);
  secure.protocol = 'https:';
  secure.search = '';
  return (
    `MEDIAFLOW_API_URL ${url.origin}${url.pathname} is plain http to ${exposed[0]}, which is not a loopback or ` +
    `private address, so the API key would cross the network unencrypted: use ${secure.href}`
  );
}

/** serviceUrlProblem for a URL not yet resolved; an unresolvable host is left to the connection. */
export async function checkServiceUrl(
  baseUrl: string,
  lookup: Lookup = systemLookup,
): Promise<string | null> {
  if (new URL(baseUrl).protocol !== 'http:') return null;
  const addresses = await addressesOf(baseUrl, lookup).catch(() => []);
  return serviceUrlProblem(baseUrl, addresses);
}

/** The download policy for links handed out by the service at `baseUrl`. */
export async function linkPolicyFor(
  baseUrl: string,
  env: NodeJS.ProcessEnv = process.env,
  lookup: Lookup = systemLookup,
): Promise<LinkPolicy> {
  return {
    allowed: allowanceFor(await addressesOf(baseUrl, lookup)),
    maxBytes: maxDownloadBytes(env),
    maxRedirects: MAX_REDIRECTS,
  };
}

/** The configured service's URL: MEDIAFLOW_API_URL, else the embedded emulator. */
export function configuredServiceUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.MEDIAFLOW_API_URL?.trim() || EMBEDDED_SERVICE_URL;
}

/**
 * For the transport: before the first request to a plain-http service, make sure its host is not
 * public, so the API key never crosses the internet in clear text (covers `mediaflow worker`, which
 * builds its client from the environment without the CLI's check). Passing once is remembered; a
 * lookup that fails is left to the connection, which fails the same way, and asked again next time.
 */
export function cleartextGuard(baseUrl: string, lookup: Lookup = systemLookup): () => Promise<void> {
  if (new URL(baseUrl).protocol !== 'http:') return async () => {};
  let passed = false;
  return async () => {
    if (passed) return;
    const addresses = await addressesOf(baseUrl, lookup).catch(() => null);
    if (addresses === null) return;
    const problem = serviceUrlProblem(baseUrl, addresses);
    if (problem) {
      throw new ServiceError({
        message: problem,
        status: null,
        type: 'invalid_request_error',
        code: 'INSECURE_SERVICE_URL',
        retryable: false,
      });
    }
    passed = true;
  };
}
