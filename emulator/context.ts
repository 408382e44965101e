/**
 * The emulator's state, built once and handed to every route group: one account, its keys,
 * limits, credits, predictions, files, webhooks, fault knobs and the ledger.
 */
import { ModelPaths } from '../api/catalogue/index.ts';
import { KeyStore } from './auth/keys.ts';
import { CreditAccount } from './billing/account.ts';
import { FaultInjector } from './faults.ts';
import { FileStore } from './files/store.ts';
import { LedgerRecorder } from './ledger.ts';
import { RateLimiter } from './limits/rate-limiter.ts';
import { type LinkIssuer, linkIssuer } from './media/links.ts';
import type { ResolvedOptions } from './options.ts';
import type { CreatorDeps } from './predictions/create.ts';
import { BASE_LATENCY_MS } from './predictions/latency.ts';
import { Lifecycle } from './predictions/lifecycle.ts';
import { OutputFlags } from './predictions/refusals.ts';
import { PredictionStore } from './predictions/store.ts';
import { streamFor } from './random.ts';
import { WebhookDispatcher } from './webhooks/delivery.ts';
import { WebhookRegistry } from './webhooks/registry.ts';

export interface EmulatorContext {
  readonly options: ResolvedOptions;
  readonly paths: ModelPaths;
  readonly keys: KeyStore;
  readonly limiter: RateLimiter;
  readonly account: CreditAccount;
  readonly predictions: PredictionStore;
  readonly lifecycle: Lifecycle;
  readonly creator: CreatorDeps;
  readonly files: FileStore;
  readonly webhooks: WebhookRegistry;
  readonly dispatcher: WebhookDispatcher;
  readonly faults: FaultInjector;
  readonly ledger: LedgerRecorder;
  /** Issues output links (media/links.ts: expiring ones when the fault knobs say so). */
  readonly links: LinkIssuer;
  /** Known once the server has bound its port; read only while serving requests. */
  readonly urls: { baseUrl: string; cdnUrl: string };
  /** Drills flip this at run time (setIgnoreIdempotency). */
  ignoreIdempotency: boolean;
  /** Called after every change of state (a request answered, a prediction settled): the state file saves. */
  onChange: () => void;
}

export function createContext(options: ResolvedOptions): EmulatorContext {
  const urls = { baseUrl: '', cdnUrl: '' };
  const ledger = new LedgerRecorder();
  const account = new CreditAccount(options.credits);
  const faults = new FaultInjector(options.faults, options.seed);
  const paths = ModelPaths.fromEnv();
  // A client refused for too many in flight should wait about as long as the quickest model takes.
  const quickest = Math.min(...Object.values(BASE_LATENCY_MS));
  const limiter = new RateLimiter(
    options.limits,
    () => quickest * options.timeScale,
    () => ledger.refused(),
  );
  const webhooks = new WebhookRegistry();
  const links = linkIssuer((prediction) => faults.linkTtlFor(prediction.id));
  const dispatcher = new WebhookDispatcher(webhooks, options.timeScale, links);
  const predictions = new PredictionStore();
  const lifecycle = new Lifecycle({
    account,
    limiter,
    ledger,
    cdnUrl: () => urls.cdnUrl,
    onSettled: (prediction) => {
      dispatcher.predictionSettled(prediction);
      context.onChange();
    },
  });
  const context: EmulatorContext = {
    options,
    paths,
    keys: new KeyStore(options.apiKey),
    limiter,
    account,
    predictions,
    lifecycle,
    creator: {
      store: predictions,
      lifecycle,
      account,
      limiter,
      ledger,
      faults,
      flags: new OutputFlags(),
      paths,
      latency: options,
      jitter: streamFor(options.seed, 'jitter'),
      ignoreIdempotency: () => context.ignoreIdempotency,
    },
    files: new FileStore(
      () => urls.cdnUrl,
      options.stateFile === undefined ? undefined : `${options.stateFile}.files`,
    ),
    webhooks,
    dispatcher,
    faults,
    links,
    ledger,
    urls,
    ignoreIdempotency: options.ignoreIdempotency,
    onChange: () => {},
  };
  return context;
}
