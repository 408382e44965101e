/**
 * Connections to any Temporal: the embedded dev server, a self-hosted cluster, or Temporal Cloud
 * (API key or mTLS). Settings come from @temporalio/envconfig, the same environment variables
 * and TOML profiles (~/.config/temporalio/temporal.toml) that the `temporal` CLI reads, so one
 * configuration serves both.
 */
import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import {
  type ClientConnectConfig,
  loadClientConfigProfile,
  loadClientConnectConfig,
} from '@temporalio/envconfig';
import type { NativeConnection } from '@temporalio/worker';
import { processTracing } from '../telemetry/process-tracing.ts';

/** The variables envconfig understands (docs/deployment.md explains each). */
export const TEMPORAL_ENV_VARS = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_CERT_DATA',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
  'TEMPORAL_TLS_SERVER_NAME',
  'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION',
  'TEMPORAL_PROFILE',
  'TEMPORAL_CONFIG_FILE',
] as const;

const DEFAULT_ADDRESS = 'localhost:7233';
const DEFAULT_NAMESPACE = 'default';

export interface ConnectOptions {
  /**
   * A server we started ourselves (the embedded dev server): plain gRPC on loopback, so the
   * profile's TLS and API key, meant for a remote cluster, are not sent to it.
   */
  localAddress?: string;
  /** Overrides TEMPORAL_NAMESPACE / the profile's namespace. */
  namespace?: string;
  /** Environment to read instead of process.env (tests). */
  env?: NodeJS.ProcessEnv;
}

export interface TemporalTarget {
  address: string;
  namespace: string;
  connectionOptions: ClientConnectConfig['connectionOptions'];
}

function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => !!entry[1]));
}

/** True when the user pointed us at a Temporal (env or config file); else the embedded default applies. */
export function temporalConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return !!loadClientConfigProfile({ overrideEnvVars: definedEnv(env) }).address;
}

/** Resolves where and how to connect, without connecting. */
export function loadTemporalTarget(options: ConnectOptions = {}): TemporalTarget {
  const config = loadClientConnectConfig({ overrideEnvVars: definedEnv(options.env ?? process.env) });
  const connectionOptions = options.localAddress
    ? { address: options.localAddress }
    : { ...config.connectionOptions, address: config.connectionOptions.address ?? DEFAULT_ADDRESS };
  return {
    address: connectionOptions.address,
    namespace: options.namespace ?? config.namespace ?? DEFAULT_NAMESPACE,
    connectionOptions,
  };
}

/**
 * What a client accepts from the server, as Temporal's Go and Java clients do (128 MiB). The
 * TypeScript client means to set the same, but names the option without gRPC's `grpc.` prefix, so
 * grpc-js keeps its 4 MiB: a page of a wide campaign's history (a thousand jobs in flight, its
 * batches' results) can exceed that and then cannot be read (docs/engine.md).
 */
export const CLIENT_CHANNEL_ARGS = { 'grpc.max_receive_message_length': 128 * 1024 * 1024 } as const;

/** A Client for starting, querying and cancelling campaigns. Close `connection` when done. */
export async function connectClient(
  options: ConnectOptions = {},
): Promise<{ client: Client; connection: Connection; namespace: string; address: string }> {
  const target = loadTemporalTarget(options);
  const connection = await Connection.connect({
    ...target.connectionOptions,
    channelArgs: CLIENT_CHANNEL_ARGS,
  });
  const client = new Client({ connection, namespace: target.namespace, ...(await clientTracing()) });
  return { client, connection, namespace: target.namespace, address: target.address };
}

/** A tracing process's client sends its span's context with every start and signal (client-spans.ts). */
async function clientTracing(): Promise<{ interceptors?: { workflow: WorkflowClientInterceptor[] } }> {
  if (!(await processTracing())) return {};
  const { CampaignClientSpans } = await import('./tracing/client-spans.ts');
  return { interceptors: { workflow: [new CampaignClientSpans()] } };
}

/** The native connection a Worker polls through. Close it after the worker has shut down. */
export async function connectWorker(
  options: ConnectOptions = {},
): Promise<{ connection: NativeConnection; namespace: string; address: string }> {
  const target = loadTemporalTarget(options);
  // Loaded here, not with this module: the worker package (its native bridge) is most of what a
  // client command would load before its first line (`run` draws its first frame before it).
  const { NativeConnection } = await import('@temporalio/worker');
  const connection = await NativeConnection.connect(target.connectionOptions);
  return { connection, namespace: target.namespace, address: target.address };
}
