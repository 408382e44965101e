/** `node --import tsx worker/bundle-workflows.ts <out.js>`: writes the workflow bundle (see workflow-bundle.ts). */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

const [out] = process.argv.slice(2);
if (!out) throw new Error('usage: bundle-workflows.ts <out.js>');
const { code } = await bundleWorkflowCode({
  workflowsPath: fileURLToPath(new URL('../workflows/index.ts', import.meta.url)),
  logger: { trace() {}, debug() {}, info() {}, log() {}, warn: console.warn, error: console.error },
});
await writeFile(out, code);
