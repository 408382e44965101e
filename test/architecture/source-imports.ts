/**
 * The imports of the project's own source: every .ts file under a room (test/architecture/rooms.ts),
 * parsed with the TypeScript compiler (syntax only, no type check), each import resolved to a
 * file of ours or named as a package or a Node module.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';

export interface Import {
  /** The importing file, from the project root (`cli/main.ts`). */
  readonly from: string;
  /** As written in the source. */
  readonly specifier: string;
  /** A file of ours (from the project root), a package (`@temporalio/client`) or `node:`. */
  readonly target: { kind: 'ours'; file: string } | { kind: 'package'; name: string } | { kind: 'node' };
  /** `import type` / `export type` / `import('x').T`: erased before the code runs. */
  readonly typeOnly: boolean;
  /** `await import('x')`: loaded only when that line runs. */
  readonly dynamic: boolean;
}

/** Every .ts file under the given top-level folders, from `root`, with `/` separators. */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.ts'))
      .map((path) => posix.join(folder, path.split('\\').join('/'))),
  );
}

export function importsOf(root: string, file: string): Import[] {
  const text = readFileSync(join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: Import[] = [];
  const add = (specifier: string, typeOnly: boolean, dynamic = false) =>
    found.push({ from: file, specifier, target: targetOf(root, file, specifier), typeOnly, dynamic });
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      // `import { type A }` still loads the module (verbatim module syntax keeps the statement).
      add(node.moduleSpecifier.text, node.importClause?.isTypeOnly === true);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      add(node.arguments[0].text, false, true);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function targetOf(root: string, file: string, specifier: string): Import['target'] {
  if (specifier.startsWith('.')) {
    const path = posix.normalize(posix.join(posix.dirname(file), specifier));
    if (!existsSync(join(root, path))) throw new Error(`${file}: ${specifier} is not a file`);
    return { kind: 'ours', file: relative(root, join(root, path)).split('\\').join('/') };
  }
  if (specifier.startsWith('node:') || isBuiltin(specifier)) return { kind: 'node' };
  const parts = specifier.split('/');
  return {
    kind: 'package',
    name: (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/'),
  };
}

/** Room of a file of ours: its top-level folder. */
export function roomOf(file: string): string {
  return file.split('/')[0] ?? file;
}

/** The folders directly under `root`, but for hidden ones and `skip`, that hold .ts files. */
export function topLevelFolders(root: string, skip: readonly string[]): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !skip.includes(entry.name))
    .map((entry) => entry.name)
    .filter((name) =>
      readdirSync(join(root, name), { recursive: true, encoding: 'utf8' }).some((p) => p.endsWith('.ts')),
    );
}
