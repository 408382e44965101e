/**
 * The face a font file holds, as Pango selects it: a family name, a weight and a slant. sharp loads
 * a font file for its text input but still draws with the face its description names (without one
 * it draws in the system's sans), and only the file knows its own names. Read by hand from the
 * file's `name` and `OS/2` tables (OpenType's layout) because the derive room admits no font
 * library; a collection (`.ttc`) is read for its first face.
 */

export interface FontFace {
  readonly family: string;
  /** 100 (thin) to 900 (black), 400 regular. */
  readonly weight: number;
  readonly italic: boolean;
}

const TYPOGRAPHIC_FAMILY = 16;
const FAMILY = 1;
const WINDOWS = 3;
const UNICODE = 0;
const MACINTOSH = 1;
const ENGLISH_US = 0x409;

/** The face in a TrueType or OpenType file, or null when the bytes are not one. */
export function fontFaceOf(file: Buffer): FontFace | null {
  try {
    const start = file.toString('latin1', 0, 4) === 'ttcf' ? file.readUInt32BE(12) : 0;
    const tables = tablesOf(file, start);
    const names = tables.get('name');
    if (names === undefined) return null;
    const family = nameOf(file, names, TYPOGRAPHIC_FAMILY) ?? nameOf(file, names, FAMILY);
    if (family === null) return null;
    const os2 = tables.get('OS/2');
    return {
      family,
      weight: os2 === undefined ? 400 : file.readUInt16BE(os2 + 4),
      italic: os2 === undefined ? false : (file.readUInt16BE(os2 + 62) & 1) === 1,
    };
  } catch (error) {
    // A table that points past the end of the file: not a font, or a truncated one.
    if (error instanceof RangeError) return null;
    throw error;
  }
}

/** Each table's tag and where it starts in the file. */
function tablesOf(file: Buffer, start: number): Map<string, number> {
  const tables = new Map<string, number>();
  const count = file.readUInt16BE(start + 4);
  for (let index = 0; index < count; index++) {
    const record = start + 12 + index * 16;
    tables.set(file.toString('latin1', record, record + 4), file.readUInt32BE(record + 8));
  }
  return tables;
}

/** A name record's text, the US English Windows one first, then any Unicode one, then a Macintosh one. */
function nameOf(file: Buffer, table: number, nameId: number): string | null {
  const count = file.readUInt16BE(table + 2);
  const strings = table + file.readUInt16BE(table + 4);
  const found: { rank: number; text: string }[] = [];
  for (let index = 0; index < count; index++) {
    const record = table + 6 + index * 12;
    if (file.readUInt16BE(record + 6) !== nameId) continue;
    const platform = file.readUInt16BE(record);
    const language = file.readUInt16BE(record + 4);
    const from = strings + file.readUInt16BE(record + 10);
    const bytes = file.subarray(from, from + file.readUInt16BE(record + 8));
    if (platform === WINDOWS || platform === UNICODE) {
      found.push({ rank: platform === WINDOWS && language === ENGLISH_US ? 0 : 1, text: utf16be(bytes) });
    } else if (platform === MACINTOSH) {
      found.push({ rank: 2, text: bytes.toString('latin1') });
    }
  }
  found.sort((a, b) => a.rank - b.rank);
  const text = found[0]?.text.trim();
  return text === undefined || text === '' ? null : text;
}

function utf16be(bytes: Buffer): string {
  return Buffer.from(bytes).swap16().toString('utf16le');
}
