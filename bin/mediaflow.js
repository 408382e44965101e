#!/usr/bin/env node
// Node runs the TypeScript CLI itself (type stripping, on by default from Node 22.18): no build
// step and no loader. Stripping swaps types for spaces, so stack traces point at the right
// lines without source maps (docs/deployment.md, "Which Node").
if (!process.features.typescript) {
  process.stderr.write(
    `mediaflow needs Node >= 22.18 (this is ${process.version}): it runs TypeScript directly\n`,
  );
  process.exit(1);
}
await import('../cli/main.ts');
