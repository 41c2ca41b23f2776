// One streaming read of a workbook with exceljs 4's reader, and what it takes to rely on it: the
// sheet list in tab order with each sheet's part in the zip, the shared strings kept compactly
// (stringTable.ts), a fix for parts of the zip it could lose, and the temporary files it parks
// sheets in removed on every way out. src/csv/xlsx.ts turns a sheet of it into a patient file.

import { createReadStream, statSync, type ReadStream } from 'node:fs';
import type WorkbookReader from 'exceljs/lib/stream/xlsx/workbook-reader.js';
import type { CellTextOptions } from './cellText.js';
import { CsvFormatError, type CsvErrorReason } from './reader.js';
import { StringTable } from './stringTable.js';

/** A sheet as xl/workbook.xml lists it, in tab order. */
export interface Sheet {
  name: string;
  number: number;
  /** Its part in the zip (xl/worksheets/sheet1.xml); undefined when no relationship names one. */
  part?: string;
  /** False for a chart sheet (or anything else that holds no cells). */
  worksheet: boolean;
  hidden: boolean;
}

// Shared strings are emitted one by one and kept here (StringTable), not in exceljs's array.
const READER_OPTIONS = { worksheets: 'emit', sharedStrings: 'emit', styles: 'cache', hyperlinks: 'ignore', entries: 'emit' } as const;

/**
 * A streaming read of the workbook: `next` gives the worksheets in zip order (each to read or to
 * `leave`), with the sheet of the list each is; `finish` reads on to the end (so the reader removes
 * its temporary files); `close` stops early, removing them too when the zip has been read.
 */
export async function openBook(path: string) {
  const { default: Reader } = await import('exceljs/lib/stream/xlsx/workbook-reader.js');
  const input = createReadStream(path);
  input.on('error', () => {}); // surfaces through the parse below
  const reader = new Reader(endOnlyWhenRead(input), READER_OPTIONS);
  // The 'entry' event for a worksheet names its part just before the worksheet itself comes out.
  let part: string | undefined;
  const seen = new Set<string>();
  reader.on('entry', (e: { type: string; id?: string }) => {
    seen.add(e.type);
    if (e.type === 'worksheet') part = `xl/worksheets/sheet${e.id}.xml`;
  });
  const events = reader.parse();
  const strings = new StringTable();
  let current: WorkbookReader.WorksheetReader | undefined;
  let listed: Sheet[] | undefined;
  const sheets = (): Sheet[] => (listed ??= sheetList(reader, path));

  return {
    sheets,
    /** What cellText needs of the workbook (read once the first sheet has come out). */
    cellOptions: (): CellTextOptions => ({ date1904: Boolean(reader.properties?.model?.date1904), sharedString: (i: number) => strings.get(i) }),
    bytesRead: () => input.bytesRead,
    /**
     * The shared strings or styles the workbook has but the reader has not read before the sheet:
     * its cells would silently lose their text, or dates their format (see endOnlyWhenRead).
     */
    unread(): string[] {
      const has = (type: string) => (reader.workbookRels ?? []).some((r) => r.Type.endsWith(`/${type}`));
      const parts: string[] = [];
      if (has('sharedStrings') && !seen.has('shared-strings')) parts.push('its text table xl/sharedStrings.xml');
      if (has('styles') && !seen.has('styles')) parts.push('its formats xl/styles.xml');
      return parts;
    },
    async next(): Promise<{ sheet?: Sheet; reader: WorkbookReader.WorksheetReader } | undefined> {
      for (let step = await events.next(); !step.done; step = await events.next()) {
        const event = step.value;
        if (event.eventType === undefined) {
          if (event.index !== strings.size) throw new Error('shared strings out of order');
          strings.add(sharedText(event.text));
        } else if (event.eventType === 'worksheet') {
          current = event.value;
          return { sheet: sheets().find((s) => s.part === part), reader: current };
        }
      }
      current = undefined;
      return undefined;
    },
    async finish(): Promise<void> {
      for (let ws = await this.next(); ws; ws = await this.next()) leave(ws.reader);
    },
    async close(): Promise<void> {
      if (current) leave(current);
      current = undefined;
      if (input.readableEnded) {
        // Only sheets parked in temporary files are left: going on to the end leaves each and has
        // the reader delete its file, instead of keeping patient rows in the temporary directory.
        await this.finish().catch(() => undefined);
        return;
      }
      input.destroy();
      await events.return(undefined).catch(() => undefined);
    },
  };
}

// A shared string's text: rich text runs joined (their fonts are of no use here).
function sharedText(text: WorkbookReader.SharedString['text']): string {
  if (text === null) return '';
  if (typeof text === 'string') return text;
  return text.richText.map((run) => run.text ?? '').join('');
}

// exceljs 4 unzips with unzipper 0.10, whose Parse emits 'end' as soon as the whole zip has been
// written into it, although entries it has parsed may still wait to be read; exceljs then stops
// before them. After a sheet parked in a temporary file, the small parts that follow (the shared
// strings, the styles, other sheets) were lost at random: cells without their text. Parse ends its
// readable side itself when the entries have all been read; its early 'end' listener is removed as
// exceljs pipes the file into it. (Should a version change that listener, unread() still refuses
// a sheet read without its strings or styles.)
function endOnlyWhenRead(input: ReadStream): ReadStream {
  const pipe = input.pipe.bind(input);
  input.pipe = (<T extends NodeJS.WritableStream>(dest: T, options?: { end?: boolean }): T => {
    const emitter = dest as unknown as NodeJS.EventEmitter;
    for (const listener of emitter.listeners('finish')) {
      if (/emit\(['"]end['"]\)/.test(String(listener))) emitter.removeListener('finish', listener as (...args: unknown[]) => void);
    }
    return pipe(dest, options);
  }) as typeof input.pipe;
  return input;
}

// A sheet not read: its parked temporary file's stream is closed (the reader then deletes the file;
// should the file go before the stream has opened it, the ENOENT is of no interest); an unparked
// one is drained by the reader itself.
export function leave(sheet: WorkbookReader.WorksheetReader): void {
  const it = sheet.iterator as Partial<ReadStream> | undefined;
  if (typeof it?.destroy !== 'function') return;
  it.on?.('error', () => undefined);
  it.destroy();
}

// Progress through a sheet parked in a temporary file; undefined when the sheet is read straight
// from the zip (the caller then counts the zip's bytes).
export function progressOf(iterator: unknown): (() => { read: number; size: number }) | undefined {
  const stream = iterator as Partial<ReadStream> | undefined;
  if (typeof stream?.path !== 'string' || typeof stream.bytesRead !== 'number') return undefined;
  let size = 0;
  try {
    size = statSync(stream.path).size;
  } catch {
    return undefined;
  }
  return () => ({ read: stream.bytesRead ?? 0, size });
}

/** The sheets xl/workbook.xml lists, in tab order, with the zip part each relationship names. */
function sheetList(reader: WorkbookReader, path: string): Sheet[] {
  const listed = reader.model?.sheets;
  if (!listed) throw workbookError(path, 'not_workbook', `${path} is a zip file but not an Excel workbook (it has no xl/workbook.xml sheet list)`);
  const rels = reader.workbookRels ?? [];
  return listed.map((s, i) => {
    const rel = rels.find((r) => r.Id === s.rId);
    return {
      name: s.name ?? '',
      number: i + 1,
      part: rel ? partPath(rel.Target) : undefined,
      worksheet: rel !== undefined && /\/worksheet$/.test(rel.Type),
      hidden: s.state === 'hidden' || s.state === 'veryHidden',
    };
  });
}

// Excel writes targets relative to xl/ ("worksheets/sheet1.xml"); other writers from the package
// root ("/xl/worksheets/sheet1.xml").
function partPath(target: string): string {
  const parts: string[] = target.startsWith('/') ? [] : ['xl'];
  for (const p of target.split('/')) {
    if (p === '..') parts.pop();
    else if (p !== '' && p !== '.') parts.push(p);
  }
  return parts.join('/');
}

/** A CsvFormatError whose message (naming the file itself) is `message`, as written. */
export function workbookError(path: string, reason: CsvErrorReason, message: string): CsvFormatError {
  const err = new CsvFormatError(path, undefined, reason, message);
  err.message = message; // the message starts with the file's name already
  return err;
}
