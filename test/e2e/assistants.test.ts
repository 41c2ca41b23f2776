// assistants create / patch against a real sandbox; the webhook secret never shows in any output.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir, type RunResult } from '../helpers/cli.js';
import { json, startFaultServer } from '../helpers/faultServer.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startRecordingProxy, type RecordingProxy } from '../unit/resources/recordingProxy.js';

const SECRET = 'whsec_do_not_print_4711';
let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;
let proxy: RecordingProxy;

beforeAll(async () => {
  sbx = await startTestSandbox();
});
afterAll(() => sbx.close());
beforeEach(async () => {
  tmp = tempDir();
  proxy = await startRecordingProxy(sbx.baseUrl);
  env = sbx.env(tmp.dir, { OUTREACH_BASE_URL: proxy.url, HOOK_SECRET: SECRET });
});
afterEach(async () => {
  await proxy.close();
  tmp.cleanup();
});

function clean(r: RunResult) {
  expect(r.stdout + r.stderr).not.toContain(SECRET);
  expect(r.stdout + r.stderr).not.toContain(sbx.key);
}
const lastResponse = () => JSON.parse(proxy.exchanges.at(-1)!.responseBody);
const lastRequest = () => JSON.parse(proxy.exchanges.at(-1)!.requestBody);

describe('assistants create', () => {
  it('flags, inline and @file JSON, secret from env: -o json is the service body, secret never shown', async () => {
    const r = await runCli(
      [
        'assistants', 'create', '--name', 'Night line', '--first-message', 'Hello there', '--voicemail-message', 'Call back',
        '--max-duration-seconds', '120', '--model', '{"provider":"openai","model":"gpt-4o"}', '--voice', '{"voiceId":"ava"}',
        '--analysis-plan', '@fixtures/assistant-analysis-plan.json', '--webhook-url', 'https://example.org/hook',
        '--webhook-secret-env', 'HOOK_SECRET', '--debug', '-o', 'json',
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    clean(r);
    expect(JSON.parse(r.stdout)).toEqual(lastResponse());
    expect(lastRequest()).toEqual({
      name: 'Night line',
      first_message: 'Hello there',
      voicemail_message: 'Call back',
      max_duration_seconds: 120,
      model: { provider: 'openai', model: 'gpt-4o' },
      voice: { voiceId: 'ava' },
      analysis_plan: { summary: true, structured_data: ['appointment_confirmed', 'callback_requested'] },
      webhook_url: 'https://example.org/hook',
      webhook_secret: SECRET,
    });
    const created = JSON.parse(r.stdout);
    expect(created.is_webhook_secret_set).toBe(true);
    expect(created).not.toHaveProperty('webhook_secret');
  });

  it('table (piped), ndjson, csv and tsv', async () => {
    const t = await runCli(['assistants', 'create', '--name', 'Plain', '--webhook-secret-env', 'HOOK_SECRET'], { env });
    expect(t.code, t.stderr).toBe(0);
    clean(t);
    const rows = Object.fromEntries(t.stdout.trimEnd().split('\n').map((l) => l.split('\t') as [string, string]));
    expect(rows.name).toBe('Plain');
    expect(rows.is_webhook_secret_set).toBe('true');
    expect(rows.id).toBe(String(lastResponse().id));
    expect(t.stderr).toContain(`Created assistant ${rows.id}.`);

    const nd = await runCli(['assistants', 'create', '--name', 'Nd', '-o', 'ndjson'], { env });
    expect(nd.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(nd.stdout)).toEqual(lastResponse());
    const csv = await runCli(['assistants', 'create', '--name', 'Csv, with comma', '-o', 'csv'], { env });
    const [head, row] = csv.stdout.trimEnd().split('\n');
    expect(head!.startsWith('id,name,first_message,voicemail_message,max_duration_seconds')).toBe(true);
    expect(row).toContain('"Csv, with comma"');
    const tsv = await runCli(['assistants', 'create', '--name', 'Tsv', '-o', 'tsv', '-q'], { env });
    expect(tsv.stdout.split('\n')[0]!.split('\t').slice(0, 2)).toEqual(['id', 'name']);
    const q = await runCli(['assistants', 'create', '--name', 'Quiet', '-q'], { env });
    expect(q.stdout).toBe(`${lastResponse().id}\n`);
    expect(q.stderr).toBe('');
  });

  it('--input gives the body; flags win field by field; secret from stdin', async () => {
    const r = await runCli(
      ['assistants', 'create', '--input', 'fixtures/assistant.json', '--name', 'Overridden', '--webhook-url', 'https://example.org/h', '--webhook-secret-stdin', '-o', 'json'],
      { env, input: `${SECRET}\n` },
    );
    expect(r.code, r.stderr).toBe(0);
    clean(r);
    const sent = lastRequest();
    expect(sent.name).toBe('Overridden');
    expect(sent.first_message).toBe('Hi, this is the clinic calling about your appointment.');
    expect(sent.model).toEqual({ provider: 'openai', model: 'gpt-4o-mini', temperature: 0.2 });
    expect(sent.webhook_secret).toBe(SECRET);
    expect(JSON.parse(r.stdout)).toEqual(lastResponse());
    expect(JSON.parse(r.stdout).is_webhook_secret_set).toBe(true);
  });

  it('bad JSON in a file: exit 2 naming the file, line and column; nothing sent', async () => {
    const r = await runCli(['assistants', 'create', '--name', 'X', '--analysis-plan', '@fixtures/assistant-analysis-plan-malformed.json'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--analysis-plan file fixtures\/assistant-analysis-plan-malformed\.json is not valid JSON: .* at line 3, column 27/);
    const m = await runCli(['assistants', 'create', '--name', 'X', '--model', '[1,2]'], { env });
    expect(m.code).toBe(2);
    expect(m.stderr).toContain('--model must be a JSON object');
    const i = await runCli(['assistants', 'create', '--input', 'fixtures/nope.json'], { env });
    expect(i.code).toBe(2);
    expect(i.stderr).toContain('--input: file fixtures/nope.json does not exist');
    expect(proxy.exchanges).toHaveLength(0);
  });

  it('usage errors: no name, empty secret variable, two stdin users', async () => {
    const n = await runCli(['assistants', 'create', '--first-message', 'hi'], { env });
    expect(n.code).toBe(2);
    expect(n.stderr).toContain('--name');
    const s = await runCli(['assistants', 'create', '--name', 'X', '--webhook-secret-env', 'UNSET_VAR'], { env });
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('UNSET_VAR is not set');
    const two = await runCli(['assistants', 'create', '--input', '-', '--webhook-secret-stdin'], { env, input: '{}' });
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('Only one input can come from stdin');
    const d = await runCli(['assistants', 'create', '--name', 'X', '--max-duration-seconds', 'ten'], { env });
    expect(d.code).toBe(2);
    expect(proxy.exchanges).toHaveLength(0);
  });

  it('the service\'s {error, message} is shown plainly (exit 3); -o json errors are one JSON object', async () => {
    const r = await runCli(['assistants', 'create', '--name', 'X', '--max-duration-seconds', '5', '--webhook-secret-env', 'HOOK_SECRET'], { env });
    expect(r.code).toBe(3);
    clean(r);
    expect(proxy.exchanges.at(-1)!.status).toBe(400);
    const message = lastResponse().message as string;
    expect(r.stderr).toBe(`error: Assistant not created: ${message} — the service answered 400.\n`);
    const j = await runCli(['assistants', 'create', '--name', 'X', '--max-duration-seconds', '5', '-o', 'json'], { env });
    expect(j.code).toBe(3);
    const err = JSON.parse(j.stderr).error;
    expect(err.status).toBe(400);
    expect(err.details).toEqual(lastResponse());
  });

  it('a service that echoes the secret back in an error: scrubbed everywhere', async () => {
    const fault = await startFaultServer(json(400, { error: 400, message: `webhook_secret "${SECRET}" is too weak` }));
    try {
      for (const extra of [[], ['-o', 'json']]) {
        const r = await runCli(['assistants', 'create', '--name', 'X', '--webhook-secret-env', 'HOOK_SECRET', ...extra], { env: { ...env, OUTREACH_BASE_URL: fault.url } });
        expect(r.code).toBe(3);
        clean(r);
        const text = extra.length ? JSON.parse(r.stderr).error.message : r.stderr;
        expect(text).toContain('webhook_secret "***" is too weak');
        if (extra.length) expect(JSON.parse(r.stderr).error.details.message).toBe('webhook_secret "***" is too weak');
      }
    } finally {
      await fault.close();
    }
  });
});

describe('assistants patch', () => {
  it('changes only the given fields; -o json is the service body', async () => {
    const r = await runCli(['assistants', 'patch', '2', '--first-message', 'Changed greeting', '--model', '{"provider":"x"}', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(lastRequest()).toEqual({ first_message: 'Changed greeting', model: { provider: 'x' } });
    expect(JSON.parse(r.stdout)).toEqual(lastResponse());
    expect(JSON.parse(r.stdout).first_message).toBe('Changed greeting');
  });

  it('sets and clears the webhook secret without showing it', async () => {
    const set = await runCli(['assistants', 'patch', '2', '--webhook-secret-stdin'], { env, input: SECRET });
    expect(set.code, set.stderr).toBe(0);
    clean(set);
    expect(set.stdout).toContain('is_webhook_secret_set\ttrue');
    const cleared = await runCli(['assistants', 'patch', '2', '--clear-webhook-secret', '-o', 'json'], { env });
    expect(lastRequest()).toEqual({ webhook_secret: null });
    expect(JSON.parse(cleared.stdout).is_webhook_secret_set).toBe(false);
  });

  it('404 exits 5; nothing to change and a bad id exit 2', async () => {
    const r = await runCli(['assistants', 'patch', '9999', '--name', 'X'], { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('Assistant 9999 not updated');
    expect(r.stderr).toContain('not found');
    const none = await runCli(['assistants', 'patch', '2'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Nothing to change');
    const bad = await runCli(['assistants', 'patch', 'abc', '--name', 'X'], { env });
    expect(bad.code).toBe(2);
  });

  it("another organisation's assistant is a 404", async () => {
    const r = await runCli(['assistants', 'patch', '1', '--name', 'X'], { env: { ...env, OUTREACH_API_KEY: sbx.otherKey } });
    expect(r.code).toBe(5);
  });

  it('help has examples', async () => {
    for (const v of ['create', 'patch']) {
      const r = await runCli(['assistants', v, '--help'], { env });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain('--webhook-secret-env');
    }
  });
});
