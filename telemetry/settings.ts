/**
 * Whether this process traces, read from OpenTelemetry's standard environment variables: an OTLP
 * endpoint turns tracing on; without one nothing of the SDK is loaded (telemetry/process-tracing.ts
 * imports it dynamically), so a process that does not trace pays for none of it.
 */

/** `MEDIAFLOW_TRACE_PROMPTS=1`: prompts go into spans (off by default: they may be confidential). */
export const TRACE_PROMPTS_ENV = 'MEDIAFLOW_TRACE_PROMPTS';

/** The service name spans carry when OTEL_SERVICE_NAME does not say. */
export const DEFAULT_SERVICE_NAME = 'mediaflow';

/**
 * True when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
 * OTEL_EXPORTER_OTLP_ENDPOINT) and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none
 * turns the SDK off, as the specification has them.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/** Whether spans may carry prompt text (MEDIAFLOW_TRACE_PROMPTS=1). */
export function promptsTraced(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[TRACE_PROMPTS_ENV] === '1';
}
