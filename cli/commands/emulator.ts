/**
 * `mediaflow emulator`: the local prediction service, for trying mediaflow offline and free.
 * The key comes from --api-key or MEDIAFLOW_API_KEY; otherwise a dev key is generated and
 * printed (it is the only secret ever printed, because the user needs it and it is throwaway).
 */
import { type Command, InvalidArgumentError } from 'commander';
import { startEmulator } from '../../emulator/index.ts';

function number(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (text: string): number => {
    const value = Number(text);
    if (text.trim() === '' || !(value >= min && value <= max)) {
      throw new InvalidArgumentError(`expected a number from ${min} to ${max}`);
    }
    return value;
  };
}

function integer(min: number) {
  return (text: string): number => {
    const value = number(min)(text);
    if (!Number.isInteger(value)) throw new InvalidArgumentError('expected a whole number');
    return value;
  };
}

interface EmulatorFlags {
  port: number;
  host: string;
  timeScale: number;
  apiKey?: string;
  credits: string;
  latencyMs?: number;
  jitter: boolean;
  sign: boolean;
  seed?: number;
  ignoreIdempotency?: boolean;
  log?: boolean;
  failRate?: number;
  serverErrorRate?: number;
  dropConnectionRate?: number;
  slowDownloadMs?: number;
  truncateDownloadRate?: number;
  refusePromptRate?: number;
  flagOutputRate?: number;
  createsPerMinute?: number;
  requestsPerMinute?: number;
  maxInFlight?: number;
  stateFile?: string;
}

export function register(program: Command): void {
  program
    .command('emulator')
    .description('Run the local emulator of the prediction service (every endpoint, real PNG/MP4 outputs)')
    .option('--port <n>', 'port to listen on (0 = any free port)', integer(0), 8787)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--time-scale <x>', 'multiplies model latencies (0 = instant)', number(0), 1)
    .option('--api-key <key>', 'API key to accept (default: MEDIAFLOW_API_KEY, else a generated dev key)')
    .option('--credits <usd>', 'starting balance', '1000.00')
    .option('--latency-ms <ms>', 'fixed latency for every model instead of the built-in ones', number(0))
    .option('--no-jitter', 'exact latencies')
    .option('--seed <n>', 'seed of fault and jitter randomness', integer(0))
    .option('--ignore-idempotency', 'treat every create as new (drills count the duplicates)')
    .option('--log', 'log every request (slows the emulator down)')
    .option('--no-sign', 'serve outputs without the C2PA manifest a provider signs them with')
    .option('--fail-rate <share>', 'share of predictions that fail (0..1)', number(0, 1))
    .option('--server-error-rate <share>', 'share of requests answered 503 (0..1)', number(0, 1))
    .option(
      '--drop-connection-rate <share>',
      'share of replies dropped after the work is done (0..1)',
      number(0, 1),
    )
    .option('--slow-download-ms <ms>', 'pause in the middle of every download', integer(0))
    .option('--truncate-download-rate <share>', 'share of downloads cut short (0..1)', number(0, 1))
    .option(
      '--refuse-prompt-rate <share>',
      'share of creates the content policy refuses, free (0..1; or write [refuse] in a prompt)',
      number(0, 1),
    )
    .option(
      '--flag-output-rate <share>',
      'share of outputs flagged after processing, charged (0..1; or write [flag] in a prompt)',
      number(0, 1),
    )
    .option('--creates-per-minute <n>', 'create rate limit per key', integer(1))
    .option('--requests-per-minute <n>', 'other-request rate limit per key', integer(1))
    .option('--max-in-flight <n>', 'predictions in flight per key', integer(1))
    .option(
      '--state-file <path>',
      'keep predictions, credits, keys, files and webhooks in this file, restored at start (default: memory only)',
    )
    .action(async (flags: EmulatorFlags) => {
      const generated = flags.apiKey === undefined && !process.env.MEDIAFLOW_API_KEY;
      const defined = <T extends object>(values: T) =>
        Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
      const emulator = await startEmulator({
        port: flags.port,
        host: flags.host,
        timeScale: flags.timeScale,
        credits: flags.credits,
        jitter: flags.jitter,
        ignoreIdempotency: flags.ignoreIdempotency ?? false,
        logger: flags.log ?? false,
        ...(flags.sign === false ? { signOutputs: false } : {}),
        ...defined({
          apiKey: flags.apiKey,
          latencyMs: flags.latencyMs,
          seed: flags.seed,
          stateFile: flags.stateFile,
        }),
        faults: defined({
          failRate: flags.failRate,
          serverErrorRate: flags.serverErrorRate,
          dropConnectionRate: flags.dropConnectionRate,
          slowDownloadMs: flags.slowDownloadMs,
          truncateDownloadRate: flags.truncateDownloadRate,
          refusePromptRate: flags.refusePromptRate,
          flagOutputRate: flags.flagOutputRate,
        }),
        limits: defined({
          createsPerMinute: flags.createsPerMinute,
          requestsPerMinute: flags.requestsPerMinute,
          maxInFlight: flags.maxInFlight,
        }),
      });
      console.log(`mediaflow emulator listening: MEDIAFLOW_API_URL=${emulator.baseUrl}`);
      console.log(
        `outputs under ${emulator.cdnUrl}, ledger at ${new URL(emulator.baseUrl).origin}/_emulator/ledger`,
      );
      console.log(
        generated
          ? `dev API key (generated): MEDIAFLOW_API_KEY=${emulator.apiKey}`
          : `API key: ${flags.apiKey === undefined ? 'from MEDIAFLOW_API_KEY' : 'from --api-key'}`,
      );
      const stop = () => {
        void emulator.close().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
