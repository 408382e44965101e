#!/usr/bin/env node
// Runs the TypeScript CLI with no build step: through Node's own type stripping where Node has it
// (22.18 and later, 24), with the stripped sources kept (typescript-cache.js), else through tsx. CPU
// of `status --help`: 1.5 s through tsx, 1.0 s stripping anew, 0.65 s with the stripped sources
// kept; every command, worker and test child pays it.
import module from 'node:module';

// V8's compiled code of every module, kept between runs (Node's own cache, in the temp folder):
// the Temporal, AWS and protobuf packages are most of a command's start-up. A cache that cannot be
// written costs nothing but the saving.
module.enableCompileCache?.();

if (process.features.typescript) {
  await import('./typescript-cache.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  // tsx turns Node's source maps on, and Node then parses and keeps the map of every module it
  // loads, node_modules included: 12 MB of a worker's memory (docs/engine.md, "Memory"). Only stack
  // traces read them, and the CLI shows those with DEBUG=mediaflow alone. Stripping keeps every
  // line and column where it was, so it needs no map.
  const { debugEnabled } = await import('../cli/debug.ts');
  if (!debugEnabled()) process.setSourceMapsEnabled(false);
}
await import('../cli/main.ts');
