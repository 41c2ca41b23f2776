// Finding the record of the batch that uploaded a file (its journal, its results file, each from the
// other) and reading what it did with each row.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { locateBatch, readFates } from '../../../src/outcomes/source.js';
import { UsageError } from '../../../src/errors.js';
import { tempDir } from '../../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
const at = (name: string) => join(tmp.dir, name);
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const AT = '2030-05-01T10:00:00.000Z';
/** A batch journal: lines 2-5 sent in chunk 1; 2 and 3 created, 4 unknown (a 502), 5 failed. */
const JOURNAL = [
  { type: 'begin', kind: 'sequences-batch', v: 2, at: AT, definition_id: 1, definition_name: 'Reminder', csv: 'patients.csv', salt: 's', key_id: 'k', headers: 'h' },
  { type: 'intent', chunk: 1, at: AT, lines: [2, 3, 4, 5], phones: ['p2', 'p3', 'p4', 'p5'] },
  { type: 'result', chunk: 1, at: AT, outcome: 'created', created: [{ line: 2, id: 41 }, { line: 3, id: null }], failed: [5], unknown: [4] },
  { type: 'end', at: AT, outcome: 'unknown-rows' },
]
  .map((r) => JSON.stringify(r))
  .join('\n') + '\n';
const RESULTS_CSV = 'line,status,sequence_id,messages\n2,created,41,\n3,created,,\n4,unknown,,\n5,invalid,,phoneNumber: bad\n6,skipped,,x\n7,not-sent,,\n';

function write(name: string, text: string): string {
  writeFileSync(at(name), text);
  return at(name);
}

async function usageError(p: Promise<unknown>): Promise<UsageError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  return err as UsageError;
}

describe('locateBatch', () => {
  it('finds the journal a batch without --out writes beside the file', async () => {
    const file = write('patients.csv', 'x\n');
    const journal = write('patients.csv.journal.ndjson', JOURNAL);
    expect(await locateBatch(file)).toEqual({ journal });
  });

  it('says where it looked, and suggests --from, when there is no journal', async () => {
    const file = write('patients.csv', 'x\n');
    const err = await usageError(locateBatch(file));
    expect(err.message).toContain(`${file}.journal.ndjson`);
    expect(err.hint).toContain('--from results.csv');
  });

  it('finds the journal from the results file, and the results file from the journal', async () => {
    const file = write('patients.csv', 'x\n');
    const results = write('results.csv', RESULTS_CSV);
    const journal = write('results.csv.journal.ndjson', JOURNAL);
    expect(await locateBatch(file, results)).toEqual({ results, journal });
    expect(await locateBatch(file, journal)).toEqual({ journal, results });
  });

  it('takes a results file alone, and a journal alone', async () => {
    const file = write('patients.csv', 'x\n');
    const results = write('results.ndjson', '{"line":2,"status":"created","sequence_id":41,"messages":[]}\n');
    expect(await locateBatch(file, results)).toEqual({ results });
    const journal = write('results.csv.journal.ndjson', JOURNAL);
    expect(await locateBatch(file, journal)).toEqual({ journal });
  });

  it('never takes the patient file itself for the results file of its journal', async () => {
    const file = write('patients.csv', 'x\n');
    const journal = write('patients.csv.journal.ndjson', JOURNAL);
    expect(await locateBatch(file, journal)).toEqual({ journal });
  });

  it('tells a journal from a results file by content when the name does not say', async () => {
    const file = write('patients.csv', 'x\n');
    const journal = write('upload.log', JOURNAL);
    expect(await locateBatch(file, journal)).toEqual({ journal });
    const other = write('notes.json', '{"hello": 1}\n');
    expect((await usageError(locateBatch(file, other))).message).toContain('neither the results file');
    expect((await usageError(locateBatch(file, at('missing.csv')))).message).toContain('no such file');
  });
});

describe('readFates', () => {
  it('takes created and unknown rows from the journal, and why the others were not from the results file', async () => {
    const fates = await readFates({ journal: write('r.csv.journal.ndjson', JOURNAL), results: write('r.csv', RESULTS_CSV) });
    expect([...fates.created]).toEqual([
      [2, 41],
      [3, null],
    ]);
    expect(Object.fromEntries(fates.statuses)).toEqual({ 4: 'unknown', 5: 'invalid', 6: 'skipped', 7: 'not-sent' });
    expect([...fates.phones.keys()]).toEqual([2, 3, 4, 5]);
    expect(fates.begin?.headers).toBe('h');
  });

  it('never lets the results file claim a row created that the journal does not have', async () => {
    const fates = await readFates({ journal: write('r.csv.journal.ndjson', JOURNAL), results: write('r.csv', 'line,status,sequence_id\n9,created,77\n') });
    expect(fates.created.has(9)).toBe(false);
    expect(fates.statuses.has(9)).toBe(false);
  });

  it('reads a results file alone (csv or ndjson): created rows with their ids, the rest by status', async () => {
    for (const results of [
      write('r.csv', RESULTS_CSV),
      write('r.ndjson', RESULTS_CSV.trim().split('\n').slice(1).map((l) => { const [line, status, id] = l.split(','); return JSON.stringify({ line: Number(line), status, sequence_id: id ? Number(id) : null, messages: [] }); }).join('\n') + '\n'),
    ]) {
      const fates = await readFates({ results });
      expect([...fates.created]).toEqual([
        [2, 41],
        [3, null],
      ]);
      expect(Object.fromEntries(fates.statuses)).toEqual({ 4: 'unknown', 5: 'invalid', 6: 'skipped', 7: 'not-sent' });
      expect([...fates.resultLines]).toEqual([2, 3, 4, 5, 6, 7]);
      expect(fates.phones.size).toBe(0);
    }
  });

  it('reads the results file alone when the journal beside it is empty', async () => {
    const fates = await readFates({ journal: write('r.csv.journal.ndjson', ''), results: write('r.csv', RESULTS_CSV) });
    expect([...fates.created.keys()]).toEqual([2, 3]);
    expect(fates.begin).toBeUndefined();
  });

  it('refuses a file that is not a results file, naming it', async () => {
    const err = await usageError(readFates({ results: write('r.csv', 'First Name,Phone\nAna,1\n') }));
    expect(err.message).toMatch(/r\.csv has no line and status columns/);
    const bad = await usageError(readFates({ results: write('r2.csv', 'line,status\nabc,created\n') }));
    expect(bad.message).toContain('line 2');
    expect(bad.message).not.toContain('abc');
  });

  it('refuses another command\'s journal', async () => {
    const elig = JSON.stringify({ type: 'begin', kind: 'eligibility-bulk', v: 1, at: AT }) + '\n';
    const err = await usageError(readFates({ journal: write('e.journal.ndjson', elig) }));
    expect(err.message).toContain('eligibility');
  });
});
