/**
 * Text kept within a terminal's width: a line longer than it is broken at its last space that
 * fits, the rest indented two spaces, so `status` in a narrow terminal reads as short lines
 * rather than fragments the terminal wrapped mid-word. Lines that fit are left as they are.
 */

/** Columns to keep to: the terminal's, at most `most`; `most` when the output is not a terminal. */
export function widthOf(stream: { isTTY?: boolean; columns?: number }, most: number): number {
  return stream.isTTY && stream.columns ? Math.max(20, Math.min(most, stream.columns - 1)) : most;
}

export function fitToWidth(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => fitLine(line, width))
    .join('\n');
}

function fitLine(line: string, width: number): string[] {
  const lines: string[] = [];
  let rest = line;
  let indent = '';
  while (indent.length + rest.length > width) {
    const room = width - indent.length;
    const at = rest.lastIndexOf(' ', room);
    // A word longer than the room is left whole: breaking it would say less.
    if (at <= 0) break;
    lines.push(`${indent}${rest.slice(0, at)}`.trimEnd());
    rest = rest.slice(at + 1);
    indent = '  ';
  }
  lines.push(`${indent}${rest}`);
  return lines;
}
