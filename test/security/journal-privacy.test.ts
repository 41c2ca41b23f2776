// Journal privacy: someone holding only a batch journal cannot recover the phone numbers in it,
// while a resume by the same user still recognises every row (0 duplicates, 0 missing).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_KEY_FILE, keyedHash, journalHashing, saltedHash } from '../../src/journal/hashing.js';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

describe('journalHashing', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.cleanup());

  it('keys new journals with a 0600 key in the config dir; the journal stores only its id', () => {
    const dir = join(tmp.dir, 'cfg');
    const h = journalHashing(undefined, dir, 'j.ndjson');
    const params = h.params();
    expect(params.key_id).toMatch(/^[0-9a-f]{12}$/);
    const keyFile = join(dir, JOURNAL_KEY_FILE);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const hash = h.hash('+14155550101');
    expect(hash).not.toBe(saltedHash(params.salt, '+14155550101'));
    expect(hash).toBe(keyedHash(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex'), params.salt, '+14155550101'));
    // A resume with the same key reads the same hashes; a second journal reuses the key.
    expect(journalHashing(params, dir, 'j.ndjson').hash('+14155550101')).toBe(hash);
    expect(journalHashing(undefined, dir, 'k.ndjson').params().key_id).toBe(params.key_id);
  });

  it('refuses (exit 2) a journal whose key this user does not have, naming the journal', () => {
    const params = journalHashing(undefined, join(tmp.dir, 'a'), 'j.ndjson').params();
    for (const other of [join(tmp.dir, 'missing'), join(tmp.dir, 'b')]) {
      if (other.endsWith('b')) journalHashing(undefined, other, 'x').params(); // a different key
      expect(() => journalHashing(params, other, 'j.ndjson').hash('+14155550101')).toThrow(
        expect.objectContaining({ exitCode: 2, message: expect.stringContaining('j.ndjson') }),
      );
    }
  });

  it('never follows a symlinked key', () => {
    const dir = join(tmp.dir, 'cfg');
    mkdirSync(dir);
    writeFileSync(join(tmp.dir, 'elsewhere'), `${'ab'.repeat(32)}\n`);
    symlinkSync(join(tmp.dir, 'elsewhere'), join(dir, JOURNAL_KEY_FILE));
    expect(() => journalHashing(undefined, dir, 'j').params()).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringMatching(/symbolic link/) }));
  });

  it('still reads journals of the salted-only kind (version 1), so an older run can be resumed', () => {
    expect(journalHashing({ salt: 's' }, join(tmp.dir, 'none'), 'j').hash('+14155550101')).toBe(saltedHash('s', '+14155550101'));
  });
});

describe('a batch journal on disk', () => {
  let sbx: TestSandbox;
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(async () => {
    sbx = await startTestSandbox();
    tmp = tempDir();
  });
  afterEach(async () => {
    await sbx.close();
    tmp.cleanup();
  });

  /** Forwards to the sandbox, but drops the first create's connection after the sandbox acted. */
  async function dropFirstCreateAfterActing() {
    const target = new URL(sbx.baseUrl);
    let creates = 0;
    const server = createServer(async (req, res) => {
      let body = '';
      for await (const c of req) body += c;
      const isCreate = req.method === 'POST' && req.url?.includes('/sequences/batch') && !JSON.parse(body).validate_only;
      const drop = isCreate && ++creates === 1;
      const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, async (answer) => {
        let text = '';
        for await (const c of answer) text += c;
        if (drop) return void req.socket.destroy();
        const headers = { ...answer.headers };
        delete headers['content-length'];
        res.writeHead(answer.statusCode ?? 502, headers);
        res.end(text);
      });
      up.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => new Promise<void>((r) => server.close(() => r())) };
  }

  it('cannot be reversed with what it holds; another user cannot resume it; the same user resumes with 0 duplicates', async () => {
    const file = join(tmp.dir, 'patients.csv');
    execFileSync(process.execPath, [join(ROOT, 'scripts/make-patients.mjs'), '120', file]);
    const out = join(tmp.dir, 'results.csv');
    const journalPath = `${out}.journal.ndjson`;
    const cfg = join(tmp.dir, 'cfg');
    const proxy = await dropFirstCreateAfterActing();
    try {
      // One chunk at a time: exactly the first chunk's 100 rows are journalled.
      const r = await runCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--out', out, '--request-timeout', '2', '--concurrency', '1'], {
        env: sbx.env(cfg, { OUTREACH_BASE_URL: proxy.url }),
      });
      expect(r.code, r.stderr).toBe(7);
    } finally {
      await proxy.close();
    }

    // What an attacker holding the journal has: the salt, the hashes. Hashing every phone of the
    // file (a superset of what they could enumerate) with that salt matches nothing.
    const records = readFileSync(journalPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const begin = records[0];
    expect(begin).toMatchObject({ type: 'begin', v: 2, key_id: expect.stringMatching(/^[0-9a-f]{12}$/) });
    const hashes = new Set(records.filter((x) => x.type === 'intent').flatMap((x) => x.phones as string[]));
    expect(hashes.size).toBe(100);
    const phones = readFileSync(file, 'utf8').trim().split('\n').slice(1).map((l) => `+1${l.split(',')[2]!.replace(/\D/g, '')}`);
    expect(phones.filter((p) => hashes.has(saltedHash(begin.salt, p)))).toEqual([]);
    expect(readFileSync(journalPath, 'utf8')).not.toMatch(/\+1\d{10}|\d{3}-\d{4}|Lopez|Brown/);
    expect(statSync(join(cfg, JOURNAL_KEY_FILE)).mode & 0o777).toBe(0o600);

    const count = async () => (await sandboxRequest<{ data: unknown[] }>(sbx, 'GET', '/sequence-manager/sequences?limit=1000&sequence_definition_id=1')).data.data.length;
    const before = await count();
    const stranger = await runCli(['sequences', 'batch', file, '--definition', '1', '--out', out, '--resume', '--yes'], { env: sbx.env(join(tmp.dir, 'other-user')) });
    expect(stranger.code, stranger.stderr).toBe(2);
    expect(stranger.stderr).toContain('journal key');
    expect(await count()).toBe(before); // nothing sent

    const resume = await runCli(['sequences', 'batch', file, '--definition', '1', '--out', out, '--resume', '--yes'], { env: sbx.env(cfg) });
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stderr).toContain('100 found created');
    expect(await count()).toBe(before + 20);
  });
});
