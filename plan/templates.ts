/**
 * `{{name}}` templates: substitution of names only, no logic, so a job's input can be predicted
 * by reading the spec. `{{from.output}}` is left in place for the engine (FROM_OUTPUT);
 * `{{row.<column>}}` is a cell of the row a job is made for (plan/for-each.ts).
 */
import { FROM_OUTPUT } from './types.ts';

export type TemplateValue = string | number | boolean;

export interface Template {
  /** Literal text and variable names, alternating as written. */
  readonly parts: readonly (string | { readonly name: string })[];
  /** The names used, in order of appearance, without duplicates. */
  readonly names: readonly string[];
  /** The whole value is exactly one `{{name}}`. */
  readonly whole: boolean;
  /** Texts between braces that are not a name, e.g. `{{ a + b }}`. */
  readonly invalid: readonly string[];
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const FROM_OUTPUT_NAME = 'from.output';
/** A table's column as a template names it: any letters, digits, "_" and "-" after `row.`. */
export const ROW_NAME = /^row\.([\p{L}\p{N}_-]+)$/u;

export function compileTemplate(text: string): Template {
  const parts: Template['parts'][number][] = [];
  const names: string[] = [];
  const invalid: string[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = match[1]!;
    if (!NAME.test(name) && name !== FROM_OUTPUT_NAME && !ROW_NAME.test(name)) {
      invalid.push(match[0]);
      continue;
    }
    if (match.index > last) parts.push(text.slice(last, match.index));
    parts.push({ name });
    if (!names.includes(name)) names.push(name);
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return { parts, names, whole: parts.length === 1 && typeof parts[0] !== 'string', invalid };
}

/**
 * Renders a template. A value that is exactly `{{name}}` keeps a boolean as a boolean; numbers
 * always become their decimal text, since every numeric parameter of the service is an
 * enumerated string. Names that `lookup` does not know are listed in `missing` and left as
 * written in the value, so one unknown name does not also read as a missing parameter.
 */
export function renderTemplate(
  template: Template,
  lookup: (name: string) => TemplateValue | undefined,
): { value: TemplateValue; missing?: string[] } {
  if (template.whole) {
    const name = (template.parts[0] as { name: string }).name;
    const value = name === FROM_OUTPUT_NAME ? FROM_OUTPUT : lookup(name);
    if (value === undefined) return { value: `{{${name}}}`, missing: [name] };
    return { value: typeof value === 'number' ? String(value) : value };
  }
  let text = '';
  const missing: string[] = [];
  for (const part of template.parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    const value = part.name === FROM_OUTPUT_NAME ? FROM_OUTPUT : lookup(part.name);
    if (value === undefined) missing.push(part.name);
    text += value === undefined ? `{{${part.name}}}` : String(value);
  }
  return missing.length > 0 ? { value: text, missing } : { value: text };
}
