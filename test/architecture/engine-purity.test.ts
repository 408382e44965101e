/**
 * The engine folders are pure (docs/architecture.md, "The engine"): the campaign's, the governor's
 * and the caps ledger's decisions are plain functions over plain data, tested as tables without a
 * server, so nothing in them may reach Temporal or Node. The runtime beside them (workflows/runtime/,
 * the governor's and the ledger's workflow files) carries their effects out.
 *
 * The campaign engine is sliced by concern (jobs, money, reviews, pacing, notices): each concern
 * depends on the shared model and on concerns below it, never on one above, so its folders import
 * one another without a circle; `step` at the engine's root is the one place that composes them.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles } from './cycles.ts';
import { type Import, importsOf, sourceFiles } from './source-imports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The pure engine folders: no Temporal, no Node module in any file under them. */
const ENGINE_FOLDERS = ['workflows/engine', 'workflows/governor/engine', 'workflows/caps/engine'];
/** The campaign engine: its sub-folders are its concerns. */
const CAMPAIGN_ENGINE = 'workflows/engine';

const under = (file: string, folder: string) => file.startsWith(`${folder}/`);

/** Why `i` breaks the engine's purity, or null: `@temporalio/*` and Node modules are the runtime's. */
function impurity(i: Import): string | null {
  if (i.target.kind === 'node') return `${i.from} imports ${i.specifier}: a Node module`;
  if (i.target.kind === 'package' && i.target.name.startsWith('@temporalio/'))
    return `${i.from} imports ${i.specifier}: Temporal belongs to the runtime`;
  return null;
}

/** The concern folder of a file of the campaign engine (`jobs`), or null at the engine's root. */
function concernOf(file: string): string | null {
  if (!under(file, CAMPAIGN_ENGINE)) return null;
  const parts = file.slice(CAMPAIGN_ENGINE.length + 1).split('/');
  return parts.length > 1 ? parts[0]! : null;
}

/** Folder-level edges between the concerns: `jobs` imports a file of `money`. */
function concernEdges(imports: readonly Import[]): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const i of imports) {
    if (i.target.kind !== 'ours') continue;
    const from = concernOf(i.from);
    const to = concernOf(i.target.file);
    if (from === null || to === null || from === to) continue;
    const targets = edges.get(from) ?? [];
    if (!targets.includes(to)) edges.set(from, [...targets, to]);
  }
  return edges;
}

const folders = ENGINE_FOLDERS.filter((folder) => existsSync(`${ROOT}${folder}`));
const imports = sourceFiles(ROOT, folders).flatMap((file) => importsOf(ROOT, file));

describe('the engine', () => {
  it('holds the campaign engine, sliced into concern folders', () => {
    expect(folders).toContain(CAMPAIGN_ENGINE);
    const concerns = new Set(imports.map((i) => concernOf(i.from)).filter((c) => c !== null));
    expect([...concerns].sort()).toEqual(['jobs', 'money', 'notices', 'pacing', 'reviews']);
  });

  it('imports neither Temporal nor a Node module', () => {
    expect(imports.map(impurity).filter((why) => why !== null)).toEqual([]);
  });

  it('has concerns that depend one way: no circle between its concern folders', () => {
    expect(cycles(concernEdges(imports)).map((path) => path.join(' → '))).toEqual([]);
  });

  it('would see a breach: a Temporal import, a Node import and a circle of concerns', () => {
    const bad = (from: string, specifier: string, target: Import['target']): Import => ({
      from,
      specifier,
      target,
      typeOnly: false,
      dynamic: false,
    });
    const sample = [
      bad('workflows/engine/jobs/a.ts', '@temporalio/workflow', {
        kind: 'package',
        name: '@temporalio/workflow',
      }),
      bad('workflows/caps/engine/b.ts', 'node:fs', { kind: 'node' }),
      bad('workflows/engine/jobs/a.ts', '../reviews/c.ts', {
        kind: 'ours',
        file: 'workflows/engine/reviews/c.ts',
      }),
      bad('workflows/engine/reviews/c.ts', '../jobs/a.ts', {
        kind: 'ours',
        file: 'workflows/engine/jobs/a.ts',
      }),
    ];
    expect(sample.map(impurity).filter((why) => why !== null)).toHaveLength(2);
    expect(cycles(concernEdges(sample)).map((path) => path.join(' → '))).toEqual(['jobs → reviews → jobs']);
  });
});
