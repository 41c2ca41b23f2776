// Terminal injection (issue 11, "Safe text"): text from the service or a patient file must never act
// on a terminal. A hostile service answers names, messages, transcripts and inputs holding an OSC
// title sequence, a clear-screen CSI, a one-byte C1 CSI (0x9b) and a bidi override; every view —
// tables and piped tables, `get` views, headings, prompts, error messages, batch problems — shows
// them visibly (`\e`, `\a`, `\x9b`, `\u{202e}`) instead. -o json stays byte for byte what the
// service sent; -o csv/tsv neutralise formula cells (OWASP).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Chalk } from 'chalk';
import { createTestIo } from '../../src/io.js';
import type { Context } from '../../src/context.js';
import { jsonTerminalSafe } from '../../src/output/safe.js';
import { writeList, writeRecord } from '../../src/output/writer.js';
import { BIN, baseEnv, runCli, tempDir, type RunResult } from '../helpers/cli.js';
import { json, startVariantServer, text, variantEnv, type VariantServer } from '../helpers/variantServer.js';

// Sets the window title, clears the screen, a C1 CSI, then flips the rest of the line right to left.
const EVIL = '\x1b]0;pwned\x07Ann\x1b[2J\x9b31m\u202eevil';
// How it must read on a terminal.
const SHOWN = '\\e]0;pwned\\aAnn\\e[2J\\x9b31m\\u{202e}evil';
const T0 = '2026-11-20T10:00:00.000Z';

/** No byte that a terminal would act on: ESC, BEL, C1 CSI, bidi overrides. */
function expectInert(...texts: string[]): void {
  for (const t of texts) {
    expect(t).not.toMatch(/[\x1b\x07\x9b\u202e]/);
  }
}

function expectClean(r: RunResult): void {
  expectInert(r.stdout, r.stderr);
}

let server: VariantServer;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  server = await startVariantServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const run = (args: string[], input?: string) => runCli(args, { env: variantEnv(server, baseEnv(tmp.dir)), input });

/** A hostile answer served (once) and the -o json output that must equal it byte for byte. */
function serve(method: string, path: RegExp, body: unknown, times = 1): void {
  server.override(method, path, json(200, body), times);
}

const shQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * The built CLI on a real pseudo-terminal (util-linux `script`): stdin, stdout and stderr are all
 * TTYs, so table views, colours and prompts take their terminal paths. Returns what the terminal got.
 * `until`: the run waits at a prompt nobody answers; once the terminal shows this text (and a moment
 * more for anything after it), the terminal is closed instead of waiting for the timeout.
 */
function runTty(args: string[], env: Record<string, string>, timeoutMs = 20_000, until?: string): Promise<{ code: number | null; screen: string }> {
  const cmd = `timeout --foreground ${Math.ceil(timeoutMs / 1000)} ${shQuote(process.execPath)} ${shQuote(BIN)} ${args.map(shQuote).join(' ')}`;
  return new Promise((resolve) => {
    // Its own process group, so that closing the terminal ends the CLI under it too.
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: { ...env, COLUMNS: '200', TERM: 'xterm' }, detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
    let screen = '';
    let closing: NodeJS.Timeout | undefined;
    const close = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const limit = setTimeout(close, timeoutMs + 5000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      screen += d;
      if (until !== undefined && closing === undefined && screen.includes(until)) closing = setTimeout(close, 300);
    });
    child.on('close', (code) => {
      clearTimeout(limit);
      clearTimeout(closing);
      resolve({ code, screen });
    });
    child.stdin!.end();
  });
}

describe('names and values from the service, piped', () => {
  it('definitions list: a definition name and input ids cannot clear the screen or set the title', async () => {
    const defs = [{ id: 1, name: EVIL, status: 'active', inputs_definition: [{ id: `due${EVIL}`, name: 'x', type: 'text', required: true }] }];
    serve('GET', /sequence-definitions$/, defs);
    const r = await run(['definitions', 'list']);
    expect(r.code).toBe(0);
    expectClean(r);
    expect(r.stdout).toContain(`1\t${SHOWN}\tactive\tdue${SHOWN}`);

    // -o json: the body's values exactly, every control and bidi character JSON-escaped (C1 and
    // bidi too, which JSON.stringify leaves raw).
    serve('GET', /sequence-definitions$/, defs);
    const j = await run(['definitions', 'list', '-o', 'json']);
    expect(j.stdout).toBe(`${jsonTerminalSafe(JSON.stringify(defs, null, 2))}\n`);
    expect(j.stdout).toContain('\\u001b]0;pwned\\u0007Ann\\u001b[2J\\u009b31m\\u202eevil');
    expect(JSON.parse(j.stdout)[0].name).toBe(EVIL);

    serve('GET', /sequence-definitions$/, defs);
    const nd = await run(['definitions', 'list', '-o', 'ndjson']);
    expect(JSON.parse(nd.stdout.trim()).name).toBe(EVIL);
  });

  it('definitions get: the record view, the heading and the inputs table', async () => {
    serve('GET', /sequence-definitions\/1$/, { id: 1, name: EVIL, status: EVIL, inputs_definition: [{ id: 'a', name: EVIL, type: 'text', required: false }] });
    const r = await run(['definitions', 'get', '1']);
    expect(r.code).toBe(0);
    expectClean(r);
    expect(r.stdout).toContain(`name\t${SHOWN}`);
    expect(r.stdout).toContain(`inputs_definition.0.id\ta\ninputs_definition.0.name\t${SHOWN}\ninputs_definition.0.type\ttext\ninputs_definition.0.required\tfalse\n`);
  });

  it('assistants patch: the assistant the service answers is shown inert', async () => {
    serve('PATCH', /\/assistant\/50$/, { id: 50, name: EVIL, first_message: `Hi${EVIL}`, organization_id: 1, created_at: T0, updated_at: T0, model: { provider: EVIL } });
    const r = await run(['assistants', 'patch', '50', '--first-message', 'Hello']);
    expect(r.code).toBe(0);
    expectClean(r);
    expect(r.stdout).toContain(`name\t${SHOWN}`);
    expect(r.stdout).toContain(`first_message\tHi${SHOWN}`);
    // A nested value is shown field by field under dotted keys, each value inert.
    expect(r.stdout).toContain(`\nmodel.provider\t${SHOWN}\n`);
  });

  it('calls get --transcript: a first name in the transcript; lines kept, everything else visible', async () => {
    const call = {
      id: 9,
      call_status: 'ended',
      transcript: `AI: Hello ${EVIL}, is this you?\nUser: yes\tit is\r\nAI: bye\x1b[K`,
      summary: `Confirmed by ${EVIL}`,
      analysis: { repetition_count: 0, interruption_count: 0, custom: { [`note${EVIL}`]: EVIL } },
      started_at: T0,
    };
    serve('GET', /\/call\/9$/, call);
    const r = await run(['calls', 'get', '9', '--transcript']);
    expect(r.code).toBe(0);
    expectClean(r);
    // Piped, the transcript is one value on one line: its line breaks and tab become spaces.
    expect(r.stdout).toContain(`\ntranscript\tAI: Hello ${SHOWN}, is this you? User: yes it is AI: bye\\e[K\n`);
    expect(r.stdout).toContain(`summary\tConfirmed by ${SHOWN}`);
    // A label taken from the service (a custom analysis key) is outside text too.
    expect(r.stdout).toContain(`\nanalysis.custom.note${SHOWN}\t${SHOWN}\n`);
  });

  it('sequences get: inputs, status and outcome', async () => {
    serve('GET', /\/sequences\/7$/, {
      id: 7,
      status: EVIL,
      outcome: EVIL,
      current_step: 1,
      inputs: [{ id: 'note', name: 'note', value: EVIL, type: 'text' }],
      steps: [{ id: EVIL, type: 'voice', status: 'pending', scheduled_at: T0, destination_number: '+14155550101' }],
    });
    const r = await run(['sequences', 'get', '7']);
    expect(r.code).toBe(0);
    expectClean(r);
    expect(r.stdout).toContain(`inputs.note\t${SHOWN}`);
    expect(r.stdout).toContain(`status\t${SHOWN}`);
    expect(r.stdout).toContain(`steps.0.order\t${SHOWN}\nsteps.0.type\tvoice`);
  });

  it('eligibility get and list: patient ids, plan, payer and patient costs', async () => {
    const check = {
      id: 300,
      status: 'completed',
      outcome: 'success',
      customer_patient_id: EVIL,
      created_at: T0,
      coverage: {
        is_active_today: true,
        plan_name: EVIL,
        payer_name: EVIL,
        member_id: 'M1',
        patient_costs: [{ type: EVIL, network: 'in', coverage_level: 'individual', time_period: 'year', amount: EVIL, description: EVIL }],
      },
    };
    serve('GET', /\/eligibility\/300$/, [check]);
    const g = await run(['eligibility', 'get', '300']);
    expect(g.code).toBe(0);
    expectClean(g);
    expect(g.stdout).toContain(`coverage.plan_name\t${SHOWN}`);
    expect(g.stdout).toContain(`customer_patient_id\t${SHOWN}`);
    expect(g.stdout).toContain(`coverage.patient_costs.0.type\t${SHOWN}\ncoverage.patient_costs.0.amount\t${SHOWN}\ncoverage.patient_costs.0.network\tin\n`);
    expect(g.stdout).toContain(`coverage.patient_costs.0.description\t${SHOWN}\n`);

    serve('GET', /\/eligibility\/300$/, [{ ...check, status: EVIL }]);
    const q = await run(['eligibility', 'get', '300', '-q']);
    expectClean(q);
    expect(q.stdout).toBe(`300\t${SHOWN}\n`);

    serve('GET', /\/eligibility$/, [check, { ...check, id: 301 }]);
    const l = await run(['eligibility', 'list']);
    expect(l.code).toBe(0);
    expectClean(l);
    expect(l.stdout).toContain(`300\tcompleted\tsuccess\ttrue\t${SHOWN}\t${SHOWN}\t${SHOWN}`);

    serve('GET', /\/eligibility$/, [{ ...check, id: EVIL }]);
    const ids = await run(['eligibility', 'list', '-q']);
    expectClean(ids);
    expect(ids.stdout).toBe(`${SHOWN}\n`);
  });

  it('eligibility watch: a status the service made up ends the watch; the record and the error are inert', async () => {
    serve('GET', /\/eligibility\/300$/, [{ id: 300, status: EVIL, created_at: T0, customer_patient_id: 'MRN-1' }], 5);
    const r = await run(['eligibility', 'watch', '300', '--interval', '0.1', '--timeout', '5']);
    expect(r.code).toBe(1);
    expectClean(r);
    expect(r.stdout).toContain(`status\t${SHOWN}`);
    expect(r.stderr).toContain(SHOWN);
  });

  it('phone numbers, calls and sequences lists, and quiet id lists', async () => {
    serve('GET', /\/phone-number$/, [{ id: 1, number: EVIL, name: EVIL, assistant_id: 1 }], 2);
    const p = await run(['phone-numbers', 'list']);
    expectClean(p);
    expect(p.stdout).toContain(`1\t${SHOWN}\t${SHOWN}\t1`);
    const pq = await run(['phone-numbers', 'list', '-q']);
    expectClean(pq);
    expect(pq.stdout).toBe(`${SHOWN}\n`);

    serve('GET', /\/call$/, [{ id: EVIL, call_status: EVIL, failure_reason: EVIL, started_at: EVIL }], 2);
    const c = await run(['calls', 'list']);
    expectClean(c);
    // id, started_at, destination_number, duration_ms, outcome, failure_reason, call_status, source_number, assistant_id
    expect(c.stdout).toBe(`${SHOWN}\t${SHOWN}\t\t\t\t${SHOWN}\t${SHOWN}\t\t\n`);
    const cq = await run(['calls', 'list', '-q']);
    expectClean(cq);
  });
});

describe("the service's error messages", () => {
  it('a JSON error body whose message holds escapes', async () => {
    server.override('GET', /\/call\/9$/, json(400, { message: `bad id ${EVIL}`, statusCode: 400 }));
    const r = await run(['calls', 'get', '9']);
    expect(r.code).toBe(3);
    expectClean(r);
    expect(r.stderr).toContain(`error: bad id ${SHOWN}`);

    // In the JSON error report the message is inert too; the body stays as sent in details.
    server.override('GET', /\/call\/9$/, json(400, { message: `bad id ${EVIL}`, statusCode: 400 }));
    const j = await run(['calls', 'get', '9', '--json']);
    expectClean(j);
    const report = JSON.parse(j.stderr.trim());
    expect(report.error.message).toContain(`bad id ${SHOWN}`);
    expect(report.error.details.message).toBe(`bad id ${EVIL}`);
  });

  it('a list of messages, an `error` field and a 404', async () => {
    server.override('GET', /\/call\/9$/, json(422, { message: [EVIL, 'second'], statusCode: 422 }));
    const a = await run(['calls', 'get', '9']);
    expectClean(a);
    expect(a.stderr).toContain(`${SHOWN}; second`);
    server.override('GET', /\/call\/9$/, json(404, { error: EVIL }));
    const b = await run(['calls', 'get', '9']);
    expect(b.code).toBe(5);
    expectClean(b);
    expect(b.stderr).toContain(SHOWN);
  });

  it('a non-JSON error body: its one-line summary is inert; --debug shows the body inert too', async () => {
    server.override('GET', /\/call\/9$/, text(400, `Bad thing ${EVIL}\nsecond line`, 'text/plain'), 2);
    const r = await run(['calls', 'get', '9']);
    expect(r.code).toBe(3);
    expectClean(r);
    expect(r.stderr).toContain(`Bad thing ${SHOWN}`);
    const d = await run(['calls', 'get', '9', '--debug']);
    expectClean(d);
    expect(d.stderr).toContain(`Bad thing ${SHOWN}\nsecond line`);
  });

  it('an assistant write the service refuses: its own words, inert', async () => {
    server.override('PATCH', /\/assistant\/50$/, json(400, { error: 400, message: `name ${EVIL} is taken`, field: EVIL }));
    const r = await run(['assistants', 'patch', '50', '--name', 'x']);
    expect(r.code).toBe(3);
    expectClean(r);
    expect(r.stderr).toContain(`name ${SHOWN} is taken`);
  });

  it('an unsupported payer: the payers the service lists are inert', async () => {
    server.override('POST', /\/eligibility$/, json(400, { message: `Payer ${EVIL}`, supported_payers: [{ payer_id: `87726${EVIL}`, name: EVIL }] }));
    const r = await run([
      'eligibility', 'check', '--first-name', 'Ana', '--last-name', 'Diaz', '--dob', '1980-04-02', '--member-id', 'W1',
      '--payer', '99999', '--provider-name', 'Clinic', '--npi', '1234567893', '--patient-id', 'MRN-1',
    ]);
    expect(r.code).toBe(3);
    expectClean(r);
    expect(r.stderr).toContain(`87726${SHOWN}  ${SHOWN}`);
  });
});

describe('sequences batch: the CSV and the service', () => {
  it("a hostile CSV header, the definition's name and the service's problem messages", async () => {
    const file = join(tmp.dir, 'patients.csv');
    writeFileSync(file, `First Name,Last Name,Phone,Notes${EVIL}\nZoe,Lee,(415) 555-0101,x\nBob,Ray,not a phone ${EVIL},y\n`);
    server.override('GET', /sequence-definitions\/1$/, json(200, { id: 1, name: EVIL, status: 'draft', inputs_definition: [] }));
    server.override('POST', /sequences\/batch$/, json(200, { valid: false, total_attempted: 1, valid_count: 0, errors: [{ rowIndex: 0, field: 'firstName', message: `firstName ${EVIL} rejected` }], warnings: [] }));
    const r = await run(['sequences', 'batch', file, '--definition', '1', '--validate-only']);
    expect(r.code).toBe(3);
    expectClean(r);
    // The problem report (stderr, piped): the service's message and the local check of the phone column.
    expect(r.stderr).toContain(`line 2: firstName: firstName ${SHOWN} rejected`);
    expect(r.stderr).toMatch(/^ {2}line 3: Phone: /m);
    // The column mapping and the warning name the header and the definition, inert.
    expect(r.stderr).toContain(`"Notes${SHOWN}"`);
    expect(r.stderr).toContain(`definition 1 "${SHOWN}" is draft`);
  });
});

describe('-o csv and -o tsv', () => {
  const cells = ['=HYPERLINK("http://x","click")', '@SUM(1)', '-2+3', '+14155550121', '-12.50', `tab\there`, `ok ${EVIL}`];
  const records = cells.map((c, i) => ({ id: i + 1, number: c, name: `line one\nline two`, assistant_id: 1 }));

  it('formula cells get a leading quote; phone numbers and negative amounts stay; control characters are inert', async () => {
    serve('GET', /\/phone-number$/, records);
    const r = await run(['phone-numbers', 'list', '-o', 'csv']);
    expect(r.code).toBe(0);
    expectClean(r);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('id,number,name,assistant_id');
    expect(r.stdout).toContain(`1,"'=HYPERLINK(""http://x"",""click"")","line one\nline two",1\n`);
    expect(r.stdout).toContain(`2,'@SUM(1),"line one\nline two",1\n`);
    expect(r.stdout).toContain(`3,'-2+3,`);
    expect(r.stdout).toContain(`4,+14155550121,`);
    expect(r.stdout).toContain(`5,-12.50,`);
    expect(r.stdout).toContain(`7,ok ${SHOWN},`);
  });

  it('tsv: the same cells, newlines and tabs as spaces', async () => {
    serve('GET', /\/phone-number$/, records);
    const r = await run(['phone-numbers', 'list', '-o', 'tsv']);
    expectClean(r);
    expect(r.stdout.split('\n')[0]).toBe('id\tnumber\tname\tassistant_id');
    expect(r.stdout).toContain(`1\t'=HYPERLINK("http://x","click")\tline one line two\t1\n`);
    expect(r.stdout).toContain(`3\t'-2+3\t`);
    expect(r.stdout).toContain(`4\t+14155550121\t`);
    expect(r.stdout).toContain(`6\ttab here\t`);
  });

  it('the piped table is inert but gets no spreadsheet quote; -o json is unchanged', async () => {
    serve('GET', /\/phone-number$/, records);
    const r = await run(['phone-numbers', 'list']);
    expectClean(r);
    expect(r.stdout).toContain(`1\t=HYPERLINK("http://x","click")\tline one line two\t1\n`);
    expect(r.stdout).toContain(`3\t-2+3\t`);
    serve('GET', /\/phone-number$/, records);
    const j = await run(['phone-numbers', 'list', '-o', 'json']);
    expect(j.stdout).toBe(`${jsonTerminalSafe(JSON.stringify(records, null, 2))}\n`);
    expect(JSON.parse(j.stdout)).toEqual(records);
  });
});

describe('on a terminal (a pseudo-terminal)', () => {
  const env = () => variantEnv(server, baseEnv(tmp.dir));
  /** Colour forced on (FORCE_COLOR, NO_COLOR unset) so that our own SGR codes are there to tell apart. */
  const colourEnv = () => {
    const { NO_COLOR: _no, ...rest } = env();
    return { ...rest, FORCE_COLOR: '1' };
  };

  it('tables, views, headings and the transcript keep only our own colour codes', async () => {
    server.store.calls.push({
      id: 77,
      call_status: EVIL,
      transcript: `AI: Hello ${EVIL}\nUser: yes`,
      summary: EVIL,
      failure_reason: EVIL,
      analysis: { repetition_count: 0, interruption_count: 0, custom: {} },
      started_at: T0,
    });
    const r = await runTty(['calls', 'get', '77', '--transcript'], colourEnv());
    expect(r.code).toBe(0);
    // Our SGR colours are there and are the only escape sequences.
    expect(r.screen).toMatch(/\x1b\[33m/);
    const withoutSgr = r.screen.replace(/\x1b\[[0-9;]*m/g, '');
    expectInert(withoutSgr);
    expect(withoutSgr).toContain(`AI: Hello ${SHOWN}`);
    expect(withoutSgr).toMatch(/summary +\\e\]0;pwned\\aAnn/);

    const l = await runTty(['calls', 'list'], colourEnv());
    expect(l.code).toBe(0);
    expectInert(l.screen.replace(/\x1b\[[0-9;]*m/g, ''));
    // (the table cuts the long cell to the terminal's width)
    expect(l.screen).toContain('\\e]0;pwne');
  });

  it('the batch confirmation names the definition inert', async () => {
    const file = join(tmp.dir, 'patients.csv');
    writeFileSync(file, 'First Name,Last Name,Phone\nAnn,Lee,(415) 555-0101\n');
    server.override('GET', /sequence-definitions\/1$/, json(200, { id: 1, name: EVIL, status: 'active', inputs_definition: [] }));
    const r = await runTty(['sequences', 'batch', file, '--definition', '1'], { ...env(), CI: '', OUTREACH_NO_INPUT: '' }, 8000, 'will be contacted by');
    // The prompt was shown (and left unanswered): nothing was created.
    expect(r.screen).toContain(`1 patient will be contacted by "${SHOWN}"`);
    expect(r.screen).not.toContain('\x1b]0;pwned');
    expect(r.screen).not.toContain('\x1b[2J');
    expect(server.creates()).toHaveLength(0);
  });
});

describe('jsonTerminalSafe (the --json error report on stderr)', () => {
  it('escapes what JSON.stringify leaves raw, and parses back to the same value', () => {
    const value = { message: EVIL, list: ['\u2028', '\x85'] };
    const text = jsonTerminalSafe(JSON.stringify(value));
    expectInert(text);
    expect(text).not.toMatch(/[\x7f-\x9f\u2028\u202e]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('the writer in process (terminal paths, colour on)', () => {
  function ctxFor(format: 'table' | 'csv' = 'table') {
    const t = createTestIo({ tty: true });
    const chalk = new Chalk({ level: 1 });
    Object.assign(t.io, { color: true, columns: 200, chalk: async () => chalk });
    const ctx = { io: t.io, globals: { format, quiet: false, formatExplicit: false }, now: () => new Date() } as unknown as Context;
    return { ctx, ...t };
  }
  const rec = { id: 1, name: EVIL, status: 'failed', note: `two\nlines ${EVIL}` };

  it('a table: cells inert before styling, styles still coloured', async () => {
    const { ctx, stdout } = ctxFor();
    await writeList(ctx, [rec], [
      { header: 'ID', value: (r) => r.id },
      { header: `NAME`, value: (r) => r.name, style: (t, _r, c) => c.red(t) },
      { header: 'NOTE', value: (r) => r.note },
    ]);
    const out = stdout();
    expect(out).toContain(`\x1b[31m${SHOWN}\x1b[39m`);
    expectInert(out.replace(/\x1b\[[0-9;]*m/g, ''));
  });

  it('a record view: labels and values inert, multi-line values indented under the value column', async () => {
    const { ctx, stdout } = ctxFor();
    await writeRecord(ctx, rec, [
      { label: 'name', value: (r) => r.name, style: (t, _r, c) => c.yellow(t) },
      { label: `label${EVIL}`, value: (r) => r.status },
      { label: 'note', value: (r) => r.note },
    ]);
    const out = stdout().replace(/\x1b\[[0-9;]*m/g, '');
    expect(stdout()).toContain(`\x1b[33m${SHOWN}\x1b[39m`);
    expectInert(out);
    expect(out).toContain(`label${SHOWN}`);
    expect(out).toMatch(/note +two\n +lines \\e\]0;pwned/);
  });
});
