// The parts of exceljs@4's streaming workbook reader that src/csv/xlsx.ts relies on, read from its
// source (node_modules/exceljs/lib/stream/xlsx/). The package's own types leave them out. The module
// is imported by its path: the whole of exceljs takes ~0.3 s longer to load than this reader alone.
declare module 'exceljs/lib/stream/xlsx/workbook-reader.js' {
  import type { EventEmitter } from 'node:events';
  import type { Readable } from 'node:stream';

  namespace WorkbookReader {
    interface Options {
      worksheets: 'emit' | 'ignore';
      sharedStrings: 'cache' | 'emit' | 'ignore';
      hyperlinks: 'cache' | 'emit' | 'ignore';
      styles: 'cache' | 'ignore';
      /** 'emit': an 'entry' event `{type: 'worksheet', id: N}` for xl/worksheets/sheetN.xml, just before its reader. */
      entries: 'emit' | 'ignore';
    }
    /** A <sheet> of xl/workbook.xml, in tab order. */
    interface SheetModel {
      name: string;
      id: number;
      rId: string;
      state?: string;
    }
    /** A relationship of xl/_rels/workbook.xml.rels. */
    interface Relationship {
      Id: string;
      Type: string;
      Target: string;
    }
    interface Cell {
      value: unknown;
      numFmt?: string;
    }
    interface Row {
      number: number;
      eachCell(iteratee: (cell: Cell, column: number) => void): void;
    }
    interface WorksheetReader {
      /** The sheet's XML: a file stream when the reader parked it in a temporary file, else a generator. */
      iterator: unknown;
      [Symbol.asyncIterator](): AsyncIterator<Row>;
    }
    /** With `sharedStrings: 'emit'`, each <si> of xl/sharedStrings.xml comes out of parse() as this (no eventType). */
    interface SharedString {
      eventType?: undefined;
      index: number;
      text: string | { richText: Array<{ text?: string | null }> } | null;
    }
    type Event = { eventType: 'worksheet'; value: WorksheetReader } | { eventType: 'shared-strings' | 'hyperlinks'; value: unknown } | SharedString;
  }

  class WorkbookReader extends EventEmitter {
    constructor(input: Readable | string, options: Partial<WorkbookReader.Options>);
    /** Worksheets in zip order; each must be read (or left) before the next step. */
    parse(): AsyncGenerator<WorkbookReader.Event>;
    /** From xl/workbook.xml, once read. */
    model?: { sheets?: WorkbookReader.SheetModel[] };
    workbookRels?: WorkbookReader.Relationship[];
    properties?: { model?: { date1904?: boolean } };
  }
  export = WorkbookReader;
}
