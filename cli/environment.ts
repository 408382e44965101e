/**
 * Where a command's Temporal and prediction service are. With neither TEMPORAL_ADDRESS (or a
 * Temporal profile) nor MEDIAFLOW_API_URL set, that is the embedded default: a local dev server
 * and the emulator, shared by every mediaflow process on this machine (worker/embedded.ts).
 */
import type { Client, Connection } from '@temporalio/client';
import { connectClient, temporalConfigured } from '../worker/connection.ts';
import { type Embedded, startEmbedded } from '../worker/embedded.ts';

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
  close(options?: { keepStack?: boolean }): Promise<void>;
}

export class ConfigurationError extends Error {}

export async function openEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<Environment> {
  const ownTemporal = temporalConfigured(env);
  const ownService = !!env.MEDIAFLOW_API_URL;
  if (ownTemporal && !ownService) {
    throw new ConfigurationError(
      'TEMPORAL_ADDRESS is set but MEDIAFLOW_API_URL is not: set MEDIAFLOW_API_URL (ending in /v1) and ' +
        'MEDIAFLOW_API_KEY to the service your workers use, or unset TEMPORAL_ADDRESS for the embedded default.',
    );
  }
  if (ownService && !env.MEDIAFLOW_API_KEY) {
    throw new ConfigurationError('MEDIAFLOW_API_URL is set but MEDIAFLOW_API_KEY is not.');
  }
  const embedded = ownTemporal
    ? null
    : await startEmbedded({ stateDir: env.MEDIAFLOW_STATE_DIR ?? '.state' });
  let connection: Connection;
  let client: Client;
  let namespace: string;
  let temporalAddress: string;
  try {
    const connected = await connectClient(
      embedded ? { localAddress: embedded.temporalAddress, env } : { env },
    );
    ({ client, connection, namespace } = connected);
    temporalAddress = connected.address;
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const service = ownService
    ? { baseUrl: env.MEDIAFLOW_API_URL!, apiKey: env.MEDIAFLOW_API_KEY! }
    : embedded!.service;
  return {
    client,
    namespace,
    temporalAddress,
    service,
    embedded,
    async close({ keepStack = false } = {}) {
      await connection.close();
      await embedded?.stop({ keepRunning: keepStack });
    },
  };
}
