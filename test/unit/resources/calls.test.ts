// Pure parts of the calls commands, and deleteCall's "a lost first attempt that landed" rule over
// real HTTP against a misbehaving server.
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/api/http.js';
import { deleteCall, mayHaveActed } from '../../../src/api/calls.js';
import { fateOfAttempt } from '../../../src/api/errors.js';
import { exitCodeFor, type DeleteRow } from '../../../src/commands/calls/delete.js';
import { wrapText, wrapTranscript } from '../../../src/commands/calls/get.js';
import { dateFlag, parseLimit } from '../../../src/commands/calls/list.js';
import { drop, json, startFaultServer, type FaultServer } from '../../helpers/faultServer.js';

let server: FaultServer | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  server = client = undefined;
});
const makeClient = (url: string) =>
  (client = new HttpClient({ baseUrl: url, apiKey: 'k', timeoutMs: 2000, retry: { baseDelayMs: 1, maxRetries: 3 }, sleep: async () => {} }));

const noContent = json(204, undefined);

describe('deleteCall', () => {
  it('204 is deleted', async () => {
    server = await startFaultServer(noContent);
    expect(await deleteCall(makeClient(server.url), 7)).toEqual({ outcome: 'deleted', status: 204 });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['DELETE /v1/call/7']);
  });

  it('a plain 404 is not found (exit 5)', async () => {
    server = await startFaultServer(json(404, { error: 'Not Found', message: 'Call 7 not found', statusCode: 404 }));
    await expect(deleteCall(makeClient(server.url), 7)).rejects.toMatchObject({ status: 404, exitCode: 5 });
    expect(server.requests).toHaveLength(1);
  });

  it('first attempt lost, retry gets 404: counted as deleted', async () => {
    server = await startFaultServer([drop, json(404, { error: 'Not Found', message: 'Call 7 not found', statusCode: 404 })]);
    expect(await deleteCall(makeClient(server.url), 7)).toEqual({ outcome: 'deleted-on-retry', status: 404 });
    expect(server.requests).toHaveLength(2);
  });

  it('a 503 refusal then 404 is still not found: the refused attempt did nothing', async () => {
    server = await startFaultServer([json(503, { message: 'busy' }), json(404, { message: 'Call 7 not found' })]);
    await expect(deleteCall(makeClient(server.url), 7)).rejects.toMatchObject({ status: 404 });
  });

  it('a 502 (may have acted behind a gateway) then 404 counts as deleted', async () => {
    server = await startFaultServer([json(502, { message: 'bad gateway' }), json(404, { message: 'Call 7 not found' })]);
    expect((await deleteCall(makeClient(server.url), 7)).outcome).toBe('deleted-on-retry');
  });

  it('mayHaveActed', () => {
    expect(mayHaveActed({ kind: 'lost', code: 'ECONNRESET' })).toBe(true);
    expect(mayHaveActed({ kind: 'not-sent', code: 'ECONNREFUSED' })).toBe(false);
    expect(mayHaveActed({ kind: 'status', status: 503 })).toBe(false);
    expect(mayHaveActed({ kind: 'status', status: 429 })).toBe(false);
    expect(mayHaveActed({ kind: 'status', status: 500 })).toBe(true);
  });

  it.each([
    [{ kind: 'lost', code: 'ECONNRESET' }, 'unknown'],
    [{ kind: 'not-sent', code: 'ECONNREFUSED' }, 'not-sent'],
    [{ kind: 'status', status: 408 }, 'unknown'],
    [{ kind: 'status', status: 425 }, 'rejected'],
    [{ kind: 'status', status: 429 }, 'refused'],
    [{ kind: 'status', status: 502 }, 'unknown'],
    [{ kind: 'status', status: 503 }, 'refused'],
    [{ kind: 'status', status: 504 }, 'unknown'],
  ] as const)('the fate of a retried attempt %j is fateOf\'s: %s', (failure, fate) => {
    expect(fateOfAttempt(failure)).toBe(fate);
  });
});

describe('exit code of a multi-id delete', () => {
  const row = (id: number, exit_code: number): DeleteRow => ({ id, exit_code, result: exit_code === 0 ? 'deleted' : exit_code === 5 ? 'not-found' : 'failed', message: null });
  it('0 when all deleted; 5 when every failure is a 404; otherwise the worst', () => {
    expect(exitCodeFor([row(1, 0), row(2, 0)])).toBe(0);
    expect(exitCodeFor([row(1, 0), row(2, 5), row(3, 5)])).toBe(5);
    expect(exitCodeFor([row(1, 5), row(2, 1)])).toBe(1);
    expect(exitCodeFor([row(1, 1), row(2, 6), row(3, 5)])).toBe(6);
    expect(exitCodeFor([row(1, 1), row(2, 4)])).toBe(4);
  });
});

describe('flags of calls list', () => {
  it('--limit is 1..1000', () => {
    expect(parseLimit(undefined)).toBeUndefined();
    expect(parseLimit('1')).toBe(1);
    expect(parseLimit('1000')).toBe(1000);
    for (const bad of ['0', '1001', '-1', '2.5', 'ten', '']) expect(() => parseLimit(bad), bad).toThrow(/--limit/);
  });
  it('dates become ISO instants; errors name the flag', () => {
    const now = new Date('2024-05-15T12:00:00Z');
    expect(dateFlag('2d', '--since', now, 'start')).toBe('2024-05-13T12:00:00.000Z');
    expect(() => dateFlag('whenever', '--until', now, 'end')).toThrow(/Invalid --until "whenever"/);
  });
});

describe('transcript wrapping', () => {
  it('wraps at spaces within the width, with a hanging indent after the speaker', () => {
    const lines = wrapTranscript('AI: one two three four five six seven eight nine ten\nUser: ok', 24);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(24);
    expect(lines[0]).toBe('AI: one two three four');
    expect(lines[1]).toBe('    five six seven eight');
    expect(lines.at(-1)).toBe('User: ok');
    expect(lines.join(' ').replace(/\s+/g, ' ')).toBe('AI: one two three four five six seven eight nine ten User: ok');
  });
  it('cuts words longer than the line', () => {
    expect(wrapText('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  });
});
