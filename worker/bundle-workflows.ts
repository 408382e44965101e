/** `node --import tsx worker/bundle-workflows.ts <out.js>`: writes the workflow bundle (see workflow-bundle.ts). */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

const [out] = process.argv.slice(2);
if (!out) throw new Error('usage: bundle-workflows.ts <out.js>');
const { code } = await bundleWorkflowCode({
  workflowsPath: fileURLToPath(new URL('../workflows/index.ts', import.meta.url)),
  logger: { trace() {}, debug() {}, info() {}, log() {}, warn: console.warn, error: console.error },
  // The SDK requires an inline source map and keeps it in every workflow thread. Its default map
  // carries the source of every module (sourcesContent), which the SDK reads only for the enhanced
  // stack trace query with `showStackTraceSources`, off here; and columns, which a stack trace of
  // TypeScript does not need to name the line. Without both, `mediaflow worker` holds less memory
  // before its first task (docs/engine.md, "Memory at start"); stack traces still name file and line.
  webpackConfigHook: (config) => ({ ...config, devtool: 'inline-nosources-cheap-module-source-map' }),
});
await writeFile(out, code);
