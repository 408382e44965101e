#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so the package needs no build step.
import { register } from 'tsx/esm/api';

register();
// tsx turns Node's source maps on, and Node then parses and keeps the map of every module it
// loads, node_modules included: 12 MB of a worker's memory (docs/engine.md, "Memory"). Only stack
// traces read them, and the CLI shows those with DEBUG=mediaflow alone.
const { debugEnabled } = await import('../cli/debug.ts');
if (!debugEnabled()) process.setSourceMapsEnabled(false);
await import('../cli/main.ts');
