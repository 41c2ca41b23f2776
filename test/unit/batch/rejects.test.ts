import { describe, expect, it } from 'vitest';
import { problemsByLine, rejectedLines } from '../../../src/batch/rejects.js';
import type { Problem } from '../../../src/batch/rows.js';

const p = (x: Partial<Problem>): Problem => ({ line: 2, field: 'phoneNumber', message: 'bad', severity: 'error', source: 'local', ...x });

describe('the problem column of a rejects file', () => {
  it("names the file's column (or the field), keeps the service's words, skips warnings and other lines", () => {
    const byLine = problemsByLine(
      [
        p({ column: 'Phone', message: 'the phone number contains letters' }),
        p({ field: 'lastName', column: 'Last Name', message: 'last name is empty' }),
        p({ source: 'service', field: 'phoneNumber', message: 'phoneNumber must be E.164' }),
        p({ source: 'service', field: '', message: 'duplicate patient' }),
        p({ source: 'service', field: '', message: 'duplicate patient' }),
        p({ severity: 'warning', message: 'looks odd' }),
        p({ line: 3, message: 'not written: line 3 is not rejected' }),
        p({ line: null, message: 'about the whole file' }),
      ],
      new Set([2]),
    );
    expect([...byLine]).toEqual([
      [2, ['Phone: the phone number contains letters', 'Last Name: last name is empty', 'phoneNumber must be E.164', 'duplicate patient']],
    ]);
  });

  it('holds the invalid rows and those the create pass rejected', () => {
    expect([...rejectedLines({ invalid: new Set([5, 3]), rejected: new Set([9]) })]).toEqual([5, 3, 9]);
  });
});
