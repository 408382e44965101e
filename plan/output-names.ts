/**
 * Output names from a template (`output.name: "{{product}}/{{colour}}-{{aspect_ratio}}"`, for the
 * campaign or one step): the file a job's output is saved as, under its step's folder, with the
 * extension the service's file has. Checked when the spec is validated, so a run never meets a
 * name it cannot write:
 *
 * - the template's own text may hold `/` (folders) but no `..`, no leading `/` (absolute), no
 *   backslash, control character or character Windows refuses (`<>:"|?*`);
 * - a value put in is made safe first: `/`, `\`, those characters and control characters become
 *   `-`, so a value never adds a folder (`16:9` gives `16-9`);
 * - every rendered name is checked again (a value of `..`, a folder named `con`, a segment ending
 *   in a dot or space, over 200 characters), and two jobs of a step with the same name (compared as
 *   a case-insensitive file system would) are a collision: both are named.
 */
import type { Report } from './report.ts';
import type { DataPath } from './source.ts';
import { didYouMean } from './suggest.ts';
import { compileTemplate, ROW_NAME, renderTemplate, type Template, type TemplateValue } from './templates.ts';

export interface OutputName {
  readonly template: Template;
  /** Where the template is written: the step's `output.name` or the campaign's. */
  readonly path: DataPath;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f<>:"|?*\\]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces
const UNSAFE_IN_VALUE = /[\u0000-\u001f\u007f<>:"|?*\\/]/g;
/** Names Windows keeps for devices, with any extension. */
const RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;
const MAX_SEGMENT = 200;

/** The step's template (its own, else the campaign's), checked as written; null when there is none. */
export function prepareOutputName(
  text: string | undefined,
  path: DataPath,
  names: ReadonlySet<string>,
  report: Report,
): OutputName | null {
  if (text === undefined) return null;
  const template = compileTemplate(text);
  for (const invalid of template.invalid)
    report(path, `${invalid} is not a variable name: output.name holds names only ({{name}})`, {
      text: invalid,
    });
  for (const name of template.names) {
    // A row's columns are checked with the step's table (plan/for-each.ts).
    if (!names.has(name) && !ROW_NAME.test(name)) {
      const known = [...names].sort();
      report(
        path,
        `unknown variable {{${name}}} in output.name${didYouMean(name, known)}; known here: ${known.join(', ')}`,
        {
          text: `{{${name}`,
        },
      );
    }
  }
  // The literal text alone, each placeholder standing for a harmless letter.
  const literal = template.parts.map((part) => (typeof part === 'string' ? part : 'x')).join('');
  const unsafe = unsafeName(literal);
  if (!unsafe) return { template, path };
  // Said of the template as written; and once, not again for every job it would name.
  report(path, `output.name ${unsafe.replace(`"${literal}"`, `"${text}"`)}`);
  return null;
}

/** Why `name` cannot be a file path under a step's folder, or null when it can. */
export function unsafeName(name: string): string | null {
  if (name.trim() === '') return 'is empty';
  if (name.startsWith('/')) return `"${name}" is an absolute path: it must stay inside the step's folder`;
  const bad = UNSAFE_CHARACTERS.exec(name);
  if (bad) {
    const shown =
      bad[0] < ' ' || bad[0] === '\u007f'
        ? `control character U+${bad[0].charCodeAt(0).toString(16).padStart(4, '0')}`
        : `"${bad[0]}"`;
    return `"${printable(name)}" holds ${shown}, which common file systems refuse`;
  }
  for (const segment of name.split('/')) {
    if (segment === '') return `"${name}" has an empty folder name ("//" or a trailing "/")`;
    if (segment === '.' || segment === '..')
      return `"${name}" holds "${segment}": a name may not leave its folder`;
    if (segment.startsWith('.'))
      return `"${name}" has "${segment}", starting with a dot (hidden, and the records' own folder starts so)`;
    if (/[. ]$/.test(segment))
      return `"${name}" has "${segment}", ending with a dot or space (Windows drops them)`;
    if (RESERVED.test(segment)) return `"${name}" has "${segment}", a device name on Windows`;
    if (segment.length > MAX_SEGMENT) return `"${name}" has a part longer than ${MAX_SEGMENT} characters`;
  }
  return null;
}

const printable = (text: string) => [...text].map((c) => (c < ' ' ? '?' : c)).join('');

/** Renders each job's name, and reports unsafe names and collisions within a step, once each. */
export class OutputNames {
  /** Taken names per step (case-folded), with the job that took each. */
  private readonly taken = new Map<string, Map<string, { job: string; file: string }>>();

  render(
    step: { readonly id: string },
    name: OutputName,
    lookup: (name: string) => TemplateValue | undefined,
    job: string,
    /** `where`: the jobs a problem is about; problems alike but for it are told once, counted. */
    problem: (path: DataPath, message: string, where?: () => string) => void,
  ): string | undefined {
    const rendered = renderTemplate(name.template, (key) => {
      const value = lookup(key);
      return typeof value === 'string' ? value.replace(UNSAFE_IN_VALUE, '-') : value;
    });
    if (rendered.missing) return undefined; // reported where the template was checked, or has no value here
    const file = String(rendered.value);
    const unsafe = unsafeName(file);
    if (unsafe) {
      problem(name.path, `job "${job}": output.name gives ${unsafe}`);
      return undefined;
    }
    const taken = this.taken.get(step.id) ?? new Map<string, { job: string; file: string }>();
    this.taken.set(step.id, taken);
    const folded = file.normalize('NFC').toLowerCase();
    const other = taken.get(folded);
    if (other !== undefined) {
      const names =
        other.file === file
          ? `"${file}"`
          : `"${other.file}" and "${file}", one name on a case-insensitive disk`;
      problem(
        name.path,
        'add a matrix key or {{variant}} to output.name',
        () => `jobs "${other.job}" and "${job}" of step "${step.id}" both get the output name ${names}`,
      );
      return undefined;
    }
    taken.set(folded, { job, file });
    return file;
  }
}
