/**
 * No circle between folders. The file-level cycle test (imports.test.ts) lets two folders lean on
 * each other through different files (`a/x → b/y`, `b/z → a/w`); this one does not, so a folder can
 * be read, moved or tested with what it stands on alone. Two levels: the top-level folders (the
 * rooms, the benchmarks, the tests), and within each, its sub-folders, where a file directly in
 * the top-level folder passes its imports on (a sub-folder importing `activities/heartbeating.ts`
 * depends on what that file imports), so a room's own index may compose its sub-folders.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles } from './cycles.ts';
import { NOT_ROOMS } from './rooms.ts';
import { importsOf, roomOf, sourceFiles, topLevelFolders } from './source-imports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What holds source beside the rooms: the benchmarks and drills, and the tests. */
const ALSO = ['bench', 'test'];
const files = sourceFiles(ROOT, [...topLevelFolders(ROOT, NOT_ROOMS), ...ALSO]);
const importsByFile = new Map(
  files.map((file) => [
    file,
    importsOf(ROOT, file).flatMap((i) => (i.target.kind === 'ours' ? [i.target.file] : [])),
  ]),
);

/** `activities/create` for `activities/create/batch.ts`; null for a file directly in its room. */
function subFolderOf(file: string): string | null {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : null;
}

/** Folder → the folders it imports, by `folderOf`; a file whose folder is null passes its imports on. */
function folderEdges(
  imports: ReadonlyMap<string, readonly string[]>,
  folderOf: (file: string) => string | null,
): Map<string, string[]> {
  const reached = (file: string, seen: Set<string>): string[] =>
    (imports.get(file) ?? []).flatMap((target) => {
      if (seen.has(target)) return [];
      seen.add(target);
      const folder = folderOf(target);
      return folder === null ? reached(target, seen) : [folder];
    });
  const edges = new Map<string, Set<string>>();
  for (const file of imports.keys()) {
    const from = folderOf(file);
    if (from === null) continue;
    for (const to of reached(file, new Set([file]))) {
      if (to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  return new Map([...edges].map(([from, to]) => [from, [...to].sort()]));
}

describe('folders', () => {
  it('at the top import one another without a circle (bench and test included)', () => {
    const circles = cycles(folderEdges(importsByFile, roomOf));
    expect(circles.map((path) => path.join(' → '))).toEqual([]);
  });

  it('within a top-level folder import one another without a circle', () => {
    const circles = [...new Set(files.map(roomOf))].flatMap((top) => {
      const within = new Map(
        [...importsByFile]
          .filter(([file]) => roomOf(file) === top)
          .map(([file, targets]) => [file, targets.filter((target) => roomOf(target) === top)]),
      );
      return cycles(folderEdges(within, subFolderOf));
    });
    expect(circles.map((path) => path.join(' → '))).toEqual([]);
  });
});
