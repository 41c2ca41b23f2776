// Small .xlsx workbooks written by hand for reader tests: a zip of
// SpreadsheetML parts, so a test can build exactly the layout it needs — header gaps, sheets whose
// tab order differs from their part numbers, absolute relationship targets, the parts in Excel's
// order or with the shared strings first.
import { writeFileSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

/** A cell: text (a shared string), a number, a boolean, a styled number, raw <c> XML, or nothing. */
export type TestCell = string | number | boolean | null | undefined | { v: number; s: number } | { inline: string } | { xml: (ref: string) => string };

export interface TestSheet {
  name: string;
  /** Rows from row 1 (or `{ r, cells }` for a row number of its own). */
  rows: Array<TestCell[] | { r: number; cells: TestCell[] }>;
  /** Its part number: xl/worksheets/sheet<file>.xml (default: its tab position). */
  file?: number;
  state?: 'hidden' | 'veryHidden';
}

export interface TestWorkbookOptions {
  /** Relationship targets from the package root (/xl/worksheets/sheet1.xml), as some writers do. */
  absoluteTargets?: boolean;
  /** Shared strings and styles before the sheets (exceljs then reads the sheets straight from the zip). */
  stringsFirst?: boolean;
  date1904?: boolean;
  /** Entries stored uncompressed (some zip tools do). */
  stored?: boolean;
}

// cellXfs: 0 General, 1 date (14), 2 "00000", 3 "h:mm", 4 "yyyy-mm-dd hh:mm".
export const STYLE = { general: 0, date: 1, zip5: 2, time: 3, dateTime: 4 } as const;

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const STYLES =
  `<styleSheet xmlns="${MAIN}"><numFmts count="3"><numFmt numFmtId="164" formatCode="00000"/><numFmt numFmtId="165" formatCode="h:mm"/>` +
  '<numFmt numFmtId="166" formatCode="yyyy-mm-dd hh:mm"/></numFmts><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>' +
  '<fills count="1"><fill><patternFill patternType="none"/></fill></fills><borders count="1"><border/></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="5">' +
  '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="166" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs></styleSheet>';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function columnName(n: number): string {
  let s = '';
  for (let i = n; i > 0; i = Math.floor((i - 1) / 26)) s = String.fromCharCode(65 + ((i - 1) % 26)) + s;
  return s;
}

/** Writes a workbook of these sheets (in tab order) to `path`. */
export function writeTestWorkbook(path: string, sheets: TestSheet[], options: TestWorkbookOptions = {}): void {
  const strings: string[] = [];
  const stringIndex = (s: string) => {
    let i = strings.indexOf(s);
    if (i === -1) i = strings.push(s) - 1;
    return i;
  };
  const cellXml = (ref: string, c: TestCell): string => {
    if (c === null || c === undefined) return '';
    if (typeof c === 'string') return `<c r="${ref}" t="s"><v>${stringIndex(c)}</v></c>`;
    if (typeof c === 'number') return `<c r="${ref}"><v>${c}</v></c>`;
    if (typeof c === 'boolean') return `<c r="${ref}" t="b"><v>${c ? 1 : 0}</v></c>`;
    if ('inline' in c) return `<c r="${ref}" t="inlineStr"><is><t>${esc(c.inline)}</t></is></c>`;
    if ('xml' in c) return c.xml(ref);
    return `<c r="${ref}" s="${c.s}"><v>${c.v}</v></c>`;
  };
  const sheetXml = (sheet: TestSheet): string => {
    const rows = sheet.rows.map((row, i) => {
      const { r, cells } = Array.isArray(row) ? { r: i + 1, cells: row } : row;
      return `<row r="${r}">${cells.map((c, j) => cellXml(`${columnName(j + 1)}${r}`, c)).join('')}</row>`;
    });
    return `<worksheet xmlns="${MAIN}" xmlns:r="${REL}"><sheetData>${rows.join('')}</sheetData></worksheet>`;
  };

  const files = sheets.map((s, i) => s.file ?? i + 1);
  const sheetParts = sheets.map((s, i): [string, string] => [`xl/worksheets/sheet${files[i]}.xml`, sheetXml(s)]);
  const target = (p: string) => (options.absoluteTargets ? `/xl/${p}` : p);
  const workbook =
    `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><workbookPr${options.date1904 ? ' date1904="1"' : ''}/><sheets>` +
    sheets.map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}"${s.state ? ` state="${s.state}"` : ''} r:id="rId${i + 1}"/>`).join('') +
    '</sheets></workbook>';
  const rels =
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="${target(`worksheets/sheet${files[i]}.xml`)}"/>`).join('') +
    `<Relationship Id="rIdS" Type="${REL}/styles" Target="${target('styles.xml')}"/>` +
    `<Relationship Id="rIdT" Type="${REL}/sharedStrings" Target="${target('sharedStrings.xml')}"/></Relationships>`;
  const head: Array<[string, string]> = [
    ['[Content_Types].xml', '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>'],
    ['xl/workbook.xml', workbook],
    ['xl/_rels/workbook.xml.rels', rels],
  ];
  const sst = () => `<sst xmlns="${MAIN}" count="${strings.length}" uniqueCount="${strings.length}">${strings.map((s) => `<si><t xml:space="preserve">${esc(s)}</t></si>`).join('')}</sst>`;
  // The sheets' XML first (it fills the string table), then the parts in the order asked for.
  const tail = (): Array<[string, string]> => [['xl/styles.xml', STYLES], ['xl/sharedStrings.xml', sst()]];
  const parts = options.stringsFirst ? [...head, ...tail(), ...sheetParts] : [...head, ...sheetParts, ...tail()];
  writeZip(path, parts, { stored: options.stored });
}

/** A zip of deflated entries, as spreadsheet programs write them (or stored). */
export function writeZip(path: string, entries: Array<[string, string | Buffer]>, options: { stored?: boolean } = {}): void {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of entries) {
    const raw = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const data = options.stored ? raw : deflateRawSync(raw);
    const method = options.stored ? 0 : 8;
    const nameBuf = Buffer.from(name, 'utf8');
    const crc = crc32(raw);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(0, 10); // time, date
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    local.writeUInt16LE(0, 28);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt16LE(method, 10);
    dir.writeUInt32LE(0, 12);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(data.length, 20);
    dir.writeUInt32LE(raw.length, 24);
    dir.writeUInt16LE(nameBuf.length, 28);
    dir.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, data);
    central.push(dir, nameBuf);
    offset += local.length + nameBuf.length + data.length;
  }
  const dirSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirSize, 12);
  end.writeUInt32LE(offset, 16);
  writeFileSync(path, Buffer.concat([...locals, ...central, end]));
}
