/**
 * `node --import tsx worker/bundle-workflows.ts <out.js> [--traced]`: writes the workflow bundle
 * (see workflow-bundle.ts); `--traced` adds the tracing interceptors (worker/tracing/).
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

const [out, variant] = process.argv.slice(2);
if (!out || (variant !== undefined && variant !== '--traced')) {
  throw new Error('usage: bundle-workflows.ts <out.js> [--traced]');
}
const TRACING_INTERCEPTORS = fileURLToPath(new URL('./tracing/workflow-interceptors.ts', import.meta.url));
const { code } = await bundleWorkflowCode({
  workflowsPath: fileURLToPath(new URL('../workflows/index.ts', import.meta.url)),
  ...(variant ? { workflowInterceptorModules: [TRACING_INTERCEPTORS] } : {}),
  logger: { trace() {}, debug() {}, info() {}, log() {}, warn: console.warn, error: console.error },
  // The SDK requires an inline source map and keeps it in every workflow thread. Its default map
  // carries the source of every module (sourcesContent), which the SDK reads only for the enhanced
  // stack trace query with `showStackTraceSources`, off here; and columns, which a stack trace of
  // TypeScript does not need to name the line. Without both, `mediaflow worker` holds less memory
  // before its first task (docs/engine.md, "Memory at start"); stack traces still name file and line.
  webpackConfigHook: (config) => ({ ...config, devtool: 'inline-nosources-cheap-module-source-map' }),
});
await writeFile(out, code);
