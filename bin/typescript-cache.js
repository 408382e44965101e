// Node strips the types of every TypeScript module on every start, and its compile cache keeps the
// compiled code but not the stripped source: a third of a command's start-up (0.35 of 1.0 s of CPU
// for `status --help`), paid again by every command, worker and test child. This load hook keeps
// the stripped source by a hash of the TypeScript, so a second start reads it instead. Written by
// hand: tsx caches its own transform but costs more to start than the stripping it saves, and no
// package caches Node's own stripping. Without the hook API (Node before 22.15) nothing changes.
// Importing this file installs the hook: bin/mediaflow.js does, and `node --import` it for a script.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Strips like Node does, without the one-time ExperimentalWarning the public API prints. */
function strip(source) {
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {};
  try {
    return module.stripTypeScriptTypes(source, { mode: 'strip' });
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** The stripped source from the cache, or stripped now and kept (a cache that cannot be written costs only the saving). */
function stripped(source, dir) {
  const file = join(dir, `${createHash('sha256').update(source).digest('hex')}.js`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    const js = strip(source);
    try {
      // Renamed into place, so a command started beside this one never reads half a file.
      const partial = `${file}.${process.pid}`;
      writeFileSync(partial, js);
      renameSync(partial, file);
    } catch {}
    return js;
  }
}

/**
 * The cache folder in the temp folder, made private to this user. Code read from a folder another
 * user could write would be theirs to choose: a folder of someone else's means no cache.
 */
function privateDir() {
  const dir = join(tmpdir(), `mediaflow-typescript-${process.version}-${process.getuid?.() ?? 0}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { uid, mode } = statSync(dir);
    return uid === (process.getuid?.() ?? uid) && (mode & 0o022) === 0 ? dir : null;
  } catch {
    return null;
  }
}

function cacheTypeScript(dir) {
  module.registerHooks({
    load(url, context, nextLoad) {
      // The project's own modules, which are ES modules ("type": "module"); Node refuses to strip
      // inside node_modules, and so does this.
      if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) {
        return nextLoad(url, context);
      }
      const source = readFileSync(fileURLToPath(url), 'utf8');
      return { format: 'module', source: stripped(source, dir), shortCircuit: true };
    },
  });
}

const dir = module.registerHooks && module.stripTypeScriptTypes ? privateDir() : null;
if (dir) cacheTypeScript(dir);
