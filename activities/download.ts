/**
 * Downloads an output file into the campaign's store without ever leaving a partial one in place:
 * the body streams into the store (store.write: a temporary file renamed into place on a folder, an
 * upload that becomes visible only once complete on S3) while its sha256 is computed, and the
 * length is checked against Content-Length before the store commits it.
 *
 * Every hop (the link and each redirect) obeys the link policy (api/client/link-policy.ts): http(s)
 * only, no private/loopback/link-local address unless the service is at one (checked on the
 * address actually connected to, after DNS), at most 5 redirects, at most MEDIAFLOW_MAX_DOWNLOAD_BYTES.
 * A refusal is a DownloadRefused (permanent); links in errors never carry their query string.
 * A body that arrives short or stalls is fetched again, within bounds (download-bounds.ts), and
 * then fails for good with every fetch's fault (DOWNLOAD_SHORT or DOWNLOAD_STALLED).
 */

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Readable } from 'node:stream';
import { Agent, type Dispatcher, request } from 'undici';
import { ConfigurationError, ServiceError } from '../api/client/index.ts';
import {
  addressRefusal,
  allowanceFor,
  type LinkPolicy,
  linkRefusal,
  MAX_REDIRECTS,
  maxDownloadBytes,
  redactLink,
  replyDecision,
  sizeRefusal,
} from '../api/client/link-policy.ts';
import { addressesOf, configuredServiceUrl } from '../api/client/service-address.ts';
import type { Store } from '../store/index.ts';
import {
  BadBody,
  type DownloadBounds,
  downloadBounds,
  fetchesExhausted,
  watchBody,
} from './download-bounds.ts';
import { localFailureKind } from './failure-kind.ts';

export { DownloadRefused, type RefusalReason, redactLink } from '../api/client/link-policy.ts';

export interface Downloaded {
  readonly sha256: string;
  readonly bytes: number;
}

/** Where a download lands: a key of the campaign's store (`<step>/<name>.<ext>`). */
export interface OutputTarget {
  readonly store: Store;
  readonly key: string;
}

export interface DownloadOptions {
  /**
   * Remove temporary files an earlier attempt left beside the target (a worker killed
   * mid-download; store.write's clearLeftovers). Only on retries: listing a folder of 100,000
   * outputs for every download would not scale.
   */
  readonly cleanUp: boolean;
  /** Default: the policy for the configured service (MEDIAFLOW_API_URL, else the embedded emulator). */
  readonly policy?: LinkPolicy;
  /** Reshapes the checked body on its way into the store (activities/provenance: XMP into a PNG). */
  readonly transform?: (body: AsyncIterable<Buffer>) => AsyncIterable<Buffer>;
  /** Default: from the environment (download-bounds.ts). */
  readonly bounds?: DownloadBounds;
}

export async function downloadFile(
  url: string,
  target: OutputTarget,
  { cleanUp, policy: given, transform, bounds: setBounds }: DownloadOptions,
): Promise<Downloaded> {
  const policy = given ?? (await configuredPolicy().catch(policyFailure));
  let bounds: DownloadBounds;
  try {
    bounds = setBounds ?? downloadBounds();
  } catch (error) {
    policyFailure(error);
  }
  const deadline = Date.now() + bounds.deadlineMs;
  // A body short or stalled is fetched again at once, up to the bound; each fault is said at the end.
  const faults: BadBody[] = [];
  for (;;) {
    try {
      return await fetchOnce(url, target, policy, {
        bounds,
        deadline,
        cleanUp: cleanUp || faults.length > 0,
        transform,
      });
    } catch (error) {
      if (!(error instanceof BadBody)) throw error;
      faults.push(error);
      if (faults.length >= bounds.fetches || Date.now() >= deadline) {
        throw fetchesExhausted(redactLink(url), faults);
      }
    }
  }
}

interface FetchLimits {
  readonly bounds: DownloadBounds;
  /** Epoch ms: the end of every fetch of this file. */
  readonly deadline: number;
  readonly cleanUp: boolean;
  readonly transform: DownloadOptions['transform'];
}

async function fetchOnce(
  url: string,
  target: OutputTarget,
  policy: LinkPolicy,
  { bounds, deadline, cleanUp, transform }: FetchLimits,
): Promise<Downloaded> {
  let link = url;
  let response: Dispatcher.ResponseData | undefined;
  try {
    response = await follow(url, policy, (hop) => {
      link = hop;
    });
    const expected = Number(response.headers['content-length'] ?? Number.NaN);
    const tooLarge = Number.isNaN(expected) ? null : sizeRefusal(expected, link, policy);
    if (tooLarge) throw tooLarge;
    const body = response.body;
    const watch = watchBody(body, bounds, deadline);
    // Checks what arrives before the store commits it: the cap, and a body cut short. A generator,
    // so an error on either side ends both (and leaving the loop early destroys the body).
    async function* checked(): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of body) {
          watch.arrived((chunk as Buffer).length);
          // Content-Length may be absent or false: the cap holds on what actually arrives.
          const refused = sizeRefusal(watch.total(), link, policy);
          if (refused) throw refused;
          yield chunk as Buffer;
        }
      } catch (error) {
        // The connection closed mid-body (a reset, a CDN node dying): a short body, worth another fetch.
        if (error instanceof BadBody || error instanceof ServiceError) throw error;
        throw truncated(watch.total(), expected, error);
      } finally {
        watch.stop();
      }
      if (!Number.isNaN(expected) && watch.total() !== expected) throw truncated(watch.total(), expected);
    }
    const delivered = transform ? transform(checked()) : checked();
    return await target.store.write(target.key, Readable.from(delivered), { clearLeftovers: cleanUp });
  } catch (error) {
    // Never read a body we will not keep; destroying it makes undici emit an abort, expected here.
    response?.body.on('error', () => {}).destroy();
    // A full or read-only disk, or a bucket that refuses us, is the output's condition, not the
    // link's: it tells the failure policy to stop the campaign (activities/failure-kind.ts).
    if (error instanceof ServiceError || error instanceof BadBody || localFailureKind(error) !== null)
      throw error;
    // Transport errors may quote what they were fetching: only the redacted link may remain.
    const why = [url, link].reduce((text, raw) => text.split(raw).join(redactLink(raw)), String(error));
    throw new ServiceError({
      message: `download of ${redactLink(link)} failed: ${why.replace(/^Error: /, '')}`,
      status: null,
      type: 'download_error',
      code: 'DOWNLOAD_FAILED',
      retryable: true,
    });
  }
}

function truncated(bytes: number, expected: number, cause?: unknown): BadBody {
  const of = Number.isNaN(expected) ? '' : ` of ${expected}`;
  const why = cause === undefined ? '' : ` (${errorCode(cause)})`;
  return new BadBody('short', `stopped after ${bytes}${of} bytes${why}`);
}

/** A transport error's code, never its message: messages may quote the link with its token. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'closed';
}

/** Requests `url`, following redirects under the policy; resolves with the 200 reply. */
async function follow(
  url: string,
  policy: LinkPolicy,
  onHop: (link: string) => void,
): Promise<Dispatcher.ResponseData> {
  let link = url;
  for (let hop = 0; ; hop++) {
    onHop(link);
    const refused = linkRefusal(link, policy);
    if (refused) throw refused;
    const response = await request(link, {
      dispatcher: agentFor(policy),
      headersTimeout: 30_000,
      bodyTimeout: 60_000,
    });
    const location = response.headers.location;
    const decision = replyDecision(
      response.statusCode,
      Array.isArray(location) ? location[0] : location,
      link,
      hop,
      policy,
    );
    if (decision.kind === 'ok') return response;
    await response.body.dump();
    if (decision.kind === 'follow') link = decision.url;
    else if (decision.kind === 'refuse') throw decision.error;
    else {
      throw new ServiceError({
        message: decision.message,
        status: response.statusCode,
        type: 'download_error',
        code: 'DOWNLOAD_FAILED',
        retryable: decision.retryable,
      });
    }
  }
}

/**
 * Output links point at the CDN, a different origin from the API: never send the API key there.
 * One pool per allowance, since the allowance lives in the pool's DNS hook.
 */
const agents = new Map<string, Agent>();

function agentFor(policy: LinkPolicy): Agent {
  const key = [...policy.allowed].sort().join(',');
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      connections: 64,
      keepAliveTimeout: 10_000,
      connect: { lookup: guardedLookup(policy) },
    });
    agents.set(key, agent);
  }
  return agent;
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The address check after DNS, on the addresses the socket will use (a host name that resolves
 * to 169.254.169.254 is refused however innocent it looks). Node asks for one or all addresses.
 */
function guardedLookup(policy: LinkPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, entries) => {
      if (error) return callback(error, []);
      for (const entry of entries) {
        const refused = addressRefusal(entry.address, hostname, policy);
        if (refused) return callback(refused, []);
      }
      if (options.all) return callback(null, entries);
      callback(null, entries[0]!.address, entries[0]!.family);
    });
  };
}

/** The service's address classes, resolved once per process per service URL. */
const allowances = new Map<string, Promise<LinkPolicy['allowed']>>();

async function configuredPolicy(env: NodeJS.ProcessEnv = process.env): Promise<LinkPolicy> {
  const serviceUrl = configuredServiceUrl(env);
  let allowed = allowances.get(serviceUrl);
  if (!allowed) {
    allowed = addressesOf(serviceUrl).then(allowanceFor);
    allowances.set(serviceUrl, allowed);
    // A DNS failure is passing: forget it, so the retry of this download asks again.
    allowed.catch(() => allowances.delete(serviceUrl));
  }
  return { allowed: await allowed, maxBytes: maxDownloadBytes(env), maxRedirects: MAX_REDIRECTS };
}

/** A bad MEDIAFLOW_MAX_DOWNLOAD_BYTES (or bound) fails the job with its reason; DNS trouble is retried. */
function policyFailure(error: unknown): never {
  const misconfigured = error instanceof ConfigurationError;
  throw new ServiceError({
    message: misconfigured
      ? (error as Error).message
      : `download refused for now: the service's address could not be resolved: ${String(error)}`,
    status: null,
    type: 'download_error',
    code: misconfigured ? 'DOWNLOAD_MISCONFIGURED' : 'DOWNLOAD_FAILED',
    retryable: !misconfigured,
  });
}
