/**
 * Where a notice may be POSTed: the download link policy's rules (api/client/link-policy.ts), on
 * every address the receiver's host resolves to. A notice carries a campaign's names, money and
 * signature, and a spec (or a variable) names the receiver, so a target must not reach the cloud
 * metadata endpoint (link-local), "this host" (0.0.0.0) or other reserved addresses at all, nor a
 * loopback or private one unless the service itself is at one (the emulator, a self-hosted stack)
 * or the worker allows local receivers explicitly (MEDIAFLOW_NOTIFY_ALLOW_LOCAL=1).
 */
import { type AddressClass, allowanceFor, classifyAddress } from '../../api/client/link-policy.ts';
import {
  addressesOf,
  configuredServiceUrl,
  type Lookup,
  systemLookup,
} from '../../api/client/service-address.ts';

export const ALLOW_LOCAL_ENV = 'MEDIAFLOW_NOTIFY_ALLOW_LOCAL';

/** Classes never allowed, whatever is configured: no receiver has a reason to be there. */
const NEVER: ReadonlySet<AddressClass> = new Set(['link-local', 'reserved']);

/** The non-public classes receivers may be at, for the worker's environment. */
export async function receiverAllowance(
  env: Readonly<Record<string, string | undefined>>,
  lookup: Lookup = systemLookup,
): Promise<Set<AddressClass>> {
  const allowed = allowanceFor(await addressesOf(configuredServiceUrl(env), lookup).catch(() => []));
  if (env[ALLOW_LOCAL_ENV] === '1') for (const kind of ['loopback', 'private'] as const) allowed.add(kind);
  return allowed;
}

/** Null when every address of `url`'s host may receive notices; else why not, naming the host only. */
export async function receiverRefusal(
  url: URL,
  allowed: ReadonlySet<AddressClass>,
  lookup: Lookup = systemLookup,
): Promise<string | null> {
  const addresses = await addressesOf(url.href, lookup);
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind === 'public' || (allowed.has(kind) && !NEVER.has(kind))) continue;
    const allow = NEVER.has(kind) ? '' : `; set ${ALLOW_LOCAL_ENV}=1 on the worker to allow local receivers`;
    return `${url.host} is at ${address}, a ${kind} address: notices are not sent there${allow}`;
  }
  return null;
}
