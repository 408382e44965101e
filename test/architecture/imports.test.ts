/**
 * The layering of docs/architecture.md, enforced: no import cycle among the project's source files,
 * no import a room's rules (test/architecture/rooms.ts) do not allow, and nothing the workflow
 * bundle loads that could make replay nondeterministic. In the manner of zod's own
 * no-circular-imports test: the source is parsed, not run.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles } from './cycles.ts';
import { NOT_ROOMS, ROOMS, type Room, WORKFLOW_BUNDLE_PACKAGES, WORKFLOW_ENTRY } from './rooms.ts';
import { type Import, importsOf, roomOf, sourceFiles, topLevelFolders } from './source-imports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const rooms = topLevelFolders(ROOT, NOT_ROOMS);
const imports = sourceFiles(
  ROOT,
  rooms.filter((folder) => folder in ROOMS),
).flatMap((file) => importsOf(ROOT, file));

/** Why `i` breaks its room's rules, or null when it keeps them. */
function breach(i: Import, room: Room): string | null {
  const { target } = i;
  if (target.kind === 'node') return room.node ? null : 'no Node module';
  if (target.kind === 'package') {
    const ok =
      room.packages === '*' ||
      room.packages.some((p) => (p.endsWith('/') ? target.name.startsWith(p) : p === target.name));
    return ok ? null : `packages ${room.packages.join(', ') || 'none'}`;
  }
  const matches = (entries: readonly string[] | '*' | undefined) =>
    entries === '*' ||
    (entries ?? []).some((entry) => entry === target.file || entry === roomOf(target.file));
  if (roomOf(target.file) === roomOf(i.from) || matches(room.ours)) return null;
  if (i.typeOnly && matches(room.typesFrom)) return null;
  const types = room.typesFrom?.length ? ` (types from ${room.typesFrom.join(', ')})` : '';
  return `ours: ${room.ours === '*' ? 'all' : room.ours.join(', ') || 'none'}${types}`;
}

describe('the rooms of the project', () => {
  it('are all declared: every top-level folder with source is a room or declared not one', () => {
    expect(rooms.filter((folder) => !(folder in ROOMS))).toEqual([]);
  });

  it('import one another without a cycle', () => {
    const edges = new Map<string, string[]>();
    for (const i of imports) {
      if (i.target.kind !== 'ours') continue;
      edges.set(i.from, [...(edges.get(i.from) ?? []), i.target.file]);
    }
    expect(cycles(edges).map((path) => path.join(' → '))).toEqual([]);
  });

  it('import only what their rules allow', () => {
    const breaches = imports.flatMap((i) => {
      const why = breach(i, ROOMS[roomOf(i.from)]!);
      return why === null ? [] : [`${i.from} imports ${i.specifier}; ${roomOf(i.from)}/ may import ${why}`];
    });
    expect(breaches).toEqual([]);
  });

  it('load nothing into the workflow bundle but the sandbox, zod and pure code of ours', () => {
    // Everything workflows/index.ts reaches at run time: type-only imports are erased by the bundler.
    const seen = new Set<string>([WORKFLOW_ENTRY]);
    const bad: string[] = [];
    for (const file of seen) {
      for (const i of imports.filter((each) => each.from === file && !each.typeOnly)) {
        if (i.target.kind === 'ours') seen.add(i.target.file);
        else if (i.target.kind === 'node' || !WORKFLOW_BUNDLE_PACKAGES.includes(i.target.name)) {
          bad.push(`${file} imports ${i.specifier}`);
        }
      }
    }
    expect(seen.size).toBeGreaterThan(10);
    expect(bad).toEqual([]);
  });
});
