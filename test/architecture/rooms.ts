/**
 * The rooms of the project (top-level folders) and what each may import: the rules
 * test/architecture/imports.test.ts enforces and docs/architecture.md explains. A room always
 * imports its own files. Tests, benchmarks and root config files are not rooms: they may import
 * anything, and nothing imports them.
 */

export interface Room {
  /** Rooms of ours (`records`) or single files (`api/money.ts`) this room may import. */
  readonly ours: readonly string[] | '*';
  /** Rooms or files it may import for types only (`import type`, erased before it runs). */
  readonly typesFrom?: readonly string[];
  /** npm packages it may import; an entry ending in `/` is a scope (`@aws-sdk/`). */
  readonly packages: readonly string[] | '*';
  /** Node's built-in modules (`node:fs`, ...). */
  readonly node: boolean;
}

/** The workflow sandbox's own and the pure: what deterministic code may load (see WORKFLOW_ENTRY). */
const WORKFLOW_SAFE = ['@temporalio/workflow', '@temporalio/common'];

/** What a room that makes spans of its own uses of telemetry/: the API's helpers, never the SDK. */
const TRACED = ['telemetry/attributes.ts', 'telemetry/settings.ts', 'telemetry/spans.ts'];

export const ROOMS: Readonly<Record<string, Room>> = {
  /**
   * Spans through OpenTelemetry's API, and the SDK a tracing process starts (loaded only then):
   * below every room that makes spans, so it stands on nothing of ours.
   */
  telemetry: { ours: [], packages: ['@opentelemetry/'], node: true },
  /**
   * The wire format and money: everything else stands on it, so it stands on nothing of ours but
   * the span helpers its calls are traced with.
   */
  api: {
    ours: TRACED,
    packages: ['zod', 'undici', 'eventsource-parser', 'standardwebhooks', '@opentelemetry/api'],
    node: true,
  },
  /** The stand-in service: speaks the wire format, knows nothing of the engine. */
  emulator: {
    ours: ['api'],
    packages: ['color-name', 'fastify', 'fast-png', 'standardwebhooks', 'zod', '@contentauth/c2pa-node'],
    node: true,
  },
  /** Spec → plan: reads the spec file, prices with the catalogue; no engine, no store. */
  plan: {
    ours: ['api', 'derive/operations.ts', 'derive/geometry.ts'],
    packages: ['csv-parse', 'yaml', 'zod'],
    node: true,
  },
  /**
   * Derivatives made on the worker: stills through sharp, clips through ffmpeg (a child process).
   * Pure media work on local files: no store, no records, no engine; the activity puts it in place.
   */
  derive: { ours: [], packages: ['sharp', 'zod'], node: true },
  /** What workflows, activities and clients exchange: data and pure rules, loaded inside the sandbox. */
  contract: {
    ours: ['api/money.ts', 'api/catalogue/models.ts'],
    typesFrom: ['plan/review.ts', 'plan/refusal.ts'],
    // Signal, query and update definitions: workflows and their clients both name them.
    packages: ['zod', '@temporalio/workflow'],
    node: false,
  },
  /**
   * Deterministic workflow code, replayed from history: the sandbox's packages, the contract and
   * pure modules only; activities by their types (proxyActivities), never their code.
   */
  workflows: {
    ours: ['contract', 'api/money.ts', 'plan/review.ts', 'plan/refusal.ts'],
    typesFrom: ['activities'],
    packages: WORKFLOW_SAFE,
    node: false,
  },
  /** Every side effect the workflows ask for: service calls, downloads, record writes. */
  activities: {
    ours: ['api', 'contract', 'derive', 'plan', 'records', 'store'],
    packages: [
      '@temporalio/activity',
      'p-limit',
      'undici',
      'standardwebhooks',
      'zod',
      '@contentauth/c2pa-node',
      'piscina',
    ],
    node: true,
  },
  /** The read model: manifest, plan, claims, decisions, kept in a store. Read by cli, review, activities. */
  records: {
    ours: ['store', 'contract', 'plan/types.ts', 'api/money.ts'],
    packages: ['@temporalio/common', 'p-limit', 'zod'],
    node: true,
  },
  /** Where records and outputs live (a folder or a bucket): bytes, no meaning. */
  store: { ours: TRACED, packages: ['@aws-sdk/', 'p-limit', 'zod', '@opentelemetry/api'], node: true },
  /** Clients of running campaigns and governors: start, attach, query, cancel. Never the worker. */
  control: {
    ours: ['contract', 'plan', 'workflows'],
    packages: ['@temporalio/client', '@temporalio/common'],
    node: true,
  },
  /**
   * The worker process and the local Temporal it may start. Never a client of campaigns. fastify
   * serves its health endpoint (worker/worker-process.ts), as it serves the emulator and review.
   */
  worker: {
    ours: ['activities', 'api', 'contract', 'records', 'store', 'telemetry', 'workflows'],
    // A planned job's type: the job spans name its key, step and take (worker/tracing/job-spans.ts).
    typesFrom: ['plan/types.ts'],
    packages: ['@temporalio/', 'zod', 'fastify', '@opentelemetry/api'],
    node: true,
  },
  /**
   * The review and report pages: reads records, sends decisions through control; a derivative not
   * made yet is described by its planned operations, in the words its provenance will use.
   */
  review: {
    ours: [
      'api',
      'contract',
      'control',
      'plan',
      'records',
      'store',
      'derive/describe.ts',
      'derive/operations.ts',
    ],
    packages: ['fastify', 'zod', '@temporalio/client', '@temporalio/common'],
    node: true,
  },
  /** The `mediaflow` command: puts everything together, talks to workflows only through control. */
  cli: {
    ours: [
      'activities',
      'api',
      'contract',
      'control',
      'emulator',
      'plan',
      'records',
      'review',
      'store',
      'telemetry',
      'worker',
    ],
    packages: '*',
    node: true,
  },
  /**
   * What the tests and the benchmarks both use (a real S3 server): product rooms only, never a
   * test or a benchmark, so neither leans on the other.
   */
  testkit: {
    ours: [
      'activities',
      'api',
      'contract',
      'control',
      'emulator',
      'plan',
      'records',
      'store',
      'worker',
      'workflows',
    ],
    packages: '*',
    node: true,
  },
  /** Maintenance scripts (schema generation, replay corpus): like tests, anything. */
  scripts: { ours: '*', packages: '*', node: true },
};

/** Top-level folders that hold no source of the product: never scanned. */
export const NOT_ROOMS = ['bench', 'bin', 'deploy', 'docs', 'node_modules', 'specs', 'test'];

/**
 * The entry the worker bundles as workflow code: every file it loads at run time (through any
 * room) may use only these packages and no Node module, or replay is no longer deterministic.
 */
export const WORKFLOW_ENTRY = 'workflows/index.ts';
export const WORKFLOW_BUNDLE_PACKAGES = [...WORKFLOW_SAFE, 'zod'];
