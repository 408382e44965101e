/**
 * Where a command's Temporal and prediction service are. With neither TEMPORAL_ADDRESS (or a
 * Temporal profile) nor MEDIAFLOW_API_URL set, that is the embedded default: a local dev server
 * and the emulator, shared by every mediaflow process on this machine (worker/embedded.ts). The
 * stack is a service: a command starts it when needed and leaves it running when it ends.
 */
import type { Client, Connection } from '@temporalio/client';
import { ConfigurationError } from '../api/client/configuration-error.ts';
import { maxDownloadBytes } from '../api/client/link-policy.ts';
import { checkServiceUrl } from '../api/client/service-address.ts';
import { registerSearchAttributes } from '../control/registered-attributes.ts';
import { connectClient, loadTemporalTarget, temporalConfigured } from '../worker/connection.ts';
import { type Embedded, startEmbedded } from '../worker/embedded.ts';
import { command } from './invocation.ts';
import { stateDirOf } from './state-home.ts';

export interface ServiceConfig {
  readonly baseUrl: string;
  /** Never printed, logged or passed to a workflow. */
  readonly apiKey: string;
}

export interface Environment {
  readonly client: Client;
  readonly namespace: string;
  readonly temporalAddress: string;
  readonly service: ServiceConfig;
  /** Set when the embedded stack serves this command. */
  readonly embedded: Embedded | null;
  /** Closes this command's connection; the embedded stack keeps running (`stack stop` stops it). */
  close(): Promise<void>;
}

export { ConfigurationError };

const SERVICE_MISSING =
  'TEMPORAL_ADDRESS is set but MEDIAFLOW_API_URL is not: set MEDIAFLOW_API_URL (ending in /v1) and ' +
  'MEDIAFLOW_API_KEY to the service your workers use, or unset TEMPORAL_ADDRESS for the embedded default.';

export interface EnvironmentNeeds {
  /** Commands that only talk to Temporal (status, cancel) need no service settings. */
  readonly service: boolean;
}

export async function openEnvironment(
  needs: EnvironmentNeeds = { service: true },
  env: NodeJS.ProcessEnv = process.env,
): Promise<Environment> {
  const ownTemporal = temporalConfigured(env);
  const ownService = !!env.MEDIAFLOW_API_URL;
  if (needs.service && ownTemporal && !ownService) throw new ConfigurationError(SERVICE_MISSING);
  if (ownService && !env.MEDIAFLOW_API_KEY) {
    throw new ConfigurationError('MEDIAFLOW_API_URL is set but MEDIAFLOW_API_KEY is not.');
  }
  if (needs.service) await checkServiceSettings(env);
  const embedded = ownTemporal ? null : withStopHint(await startEmbedded({ stateDir: stateDirOf(env) }));
  let connection: Connection;
  let client: Client;
  let namespace: string;
  let temporalAddress: string;
  const target = embedded ? { localAddress: embedded.temporalAddress, env } : { env };
  try {
    const connected = await connectClient(target);
    ({ client, connection, namespace } = connected);
    temporalAddress = connected.address;
    if (embedded) await registerSearchAttributes(client);
  } catch (error) {
    throw new ConfigurationError(
      `could not reach Temporal at ${loadTemporalTarget(target).address}` +
        `${embedded ? '' : ' (TEMPORAL_ADDRESS or your Temporal profile)'}: ${(error as Error).message}`,
    );
  }
  const service = ownService
    ? { baseUrl: env.MEDIAFLOW_API_URL!, apiKey: env.MEDIAFLOW_API_KEY! }
    : (embedded?.service ?? null);
  return {
    client,
    namespace,
    temporalAddress,
    // Commands that said they need no service (status, cancel, review…) run with TEMPORAL_ADDRESS
    // alone; one that reaches for it anyway gets the fix, not a TypeError.
    get service(): ServiceConfig {
      if (service === null) throw new ConfigurationError(SERVICE_MISSING);
      return service;
    },
    embedded,
    async close() {
      await connection.close();
    },
  };
}

/** A stack started by this command outlives it: the user is told how to stop it. */
function withStopHint(embedded: Embedded): Embedded {
  if (embedded.attached) return embedded;
  return { ...embedded, summary: `${embedded.summary} Stop it with: ${command('stack', 'stop')}` };
}

/**
 * Settings that would only fail later, inside a worker's activity, refused up front in one line:
 * an API URL that would send the key in clear text over the internet, a bad download size cap.
 */
async function checkServiceSettings(env: NodeJS.ProcessEnv): Promise<void> {
  const url = env.MEDIAFLOW_API_URL?.trim();
  if (url) {
    if (!URL.canParse(url)) {
      throw new ConfigurationError(
        `MEDIAFLOW_API_URL is not a URL: set it to the service's base URL, ending in /v1.`,
      );
    }
    const problem = await checkServiceUrl(url);
    if (problem) throw new ConfigurationError(problem);
  }
  maxDownloadBytes(env);
}
