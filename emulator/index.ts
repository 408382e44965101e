/**
 * The local emulator of the Generative Media Prediction Service: `startEmulator()` for tests,
 * benchmarks and drills, `mediaflow emulator` for people. See docs/service-assumptions.md for
 * every behaviour the service spec leaves open.
 */
import type { ModelLabel } from '../api/catalogue/index.ts';
import { parseUsd } from '../api/money.ts';
import { createContext } from './context.ts';
import type { Ledger } from './ledger.ts';
import type { EmulatorOptions, Faults, Limits } from './options.ts';
import { resolveOptions } from './options.ts';
import { applySnapshot, captureSnapshot } from './persistence/snapshot.ts';
import { readStateFile, StateSaver } from './persistence/state-file.ts';
import { buildServer } from './server.ts';

export { DEFAULT_FAULTS, DEFAULT_LIMITS } from './options.ts';
export type { EmulatorOptions, Faults, Ledger, Limits, ModelLabel };

export interface RunningEmulator {
  /** http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** Base of output files (outside /v1). */
  cdnUrl: string;
  apiKey: string;
  /** Same JSON as GET /_emulator/ledger. */
  ledger(): Ledger;
  setFaults(faults: Partial<Faults>): void;
  setLimits(limits: Partial<Limits>): void;
  setIgnoreIdempotency(on: boolean): void;
  /** Adds credits to the account, a decimal string of dollars ("5.00"). */
  addCredits(usd: string): void;
  close(): Promise<void>;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const options = resolveOptions(opts);
  const context = createContext(options);
  const app = buildServer(context);
  // Read before listening: a damaged state file stops the start instead of serving an empty state.
  const saved = options.stateFile === undefined ? undefined : readStateFile(options.stateFile);
  const saver =
    options.stateFile === undefined
      ? undefined
      : new StateSaver(
          options.stateFile,
          () => captureSnapshot(context),
          (error) => {
            process.stderr.write(`emulator: could not save its state: ${error.message}\n`);
          },
        );
  if (saver) {
    context.onChange = () => saver.changed();
    // Any answered request may have changed something (a create, a key, the ledger's counters).
    app.addHook('onResponse', async () => saver.changed());
  }
  await app.listen({ port: options.port, host: options.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const origin = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  context.urls.baseUrl = `${origin}/v1`;
  context.urls.cdnUrl = `${origin}/cdn`;
  // Synchronously after listen resolved: no request is handled before the state is back (output
  // links need the new origin, so it cannot happen earlier).
  if (saved) applySnapshot(context, saved);
  return {
    baseUrl: context.urls.baseUrl,
    cdnUrl: context.urls.cdnUrl,
    apiKey: options.apiKey,
    ledger: () => context.ledger.snapshot(),
    setFaults: (faults) => context.faults.set(faults),
    setLimits: (limits) => context.limiter.set(limits),
    setIgnoreIdempotency: (on) => {
      context.ignoreIdempotency = on;
    },
    addCredits: (usd) => context.account.addCredits(parseUsd(usd)),
    close: async () => {
      context.lifecycle.stop();
      context.dispatcher.stop();
      await app.close();
      // After the server stopped answering: nothing changes after this last save.
      saver?.close();
    },
  };
}
