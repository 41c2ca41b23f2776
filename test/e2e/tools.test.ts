// tools patch against a real sandbox: local checks of the function, the parameters table.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startRecordingProxy, type RecordingProxy } from '../unit/resources/recordingProxy.js';

let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;
let proxy: RecordingProxy;
let toolId: string;
let toolIds: string[];

beforeAll(async () => {
  sbx = await startTestSandbox();
  toolIds = sbx.organizations[0]!.tool_ids;
});
afterAll(() => sbx.close());
beforeEach(async () => {
  tmp = tempDir();
  proxy = await startRecordingProxy(sbx.baseUrl);
  env = sbx.env(tmp.dir, { OUTREACH_BASE_URL: proxy.url });
  toolId = toolIds[0]!;
});
afterEach(async () => {
  await proxy.close();
  tmp.cleanup();
});

const lastResponse = () => JSON.parse(proxy.exchanges.at(-1)!.responseBody);
const lastRequest = () => JSON.parse(proxy.exchanges.at(-1)!.requestBody);

describe('tools patch', () => {
  it('--function @file: checked, sent, shown with its parameters as a table', async () => {
    const r = await runCli(['tools', 'patch', toolIds[1]!, '--function', '@fixtures/tool-function.json', '--async'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(lastRequest()).toMatchObject({ async: true, function: { name: 'reschedule_appointment' } });
    // Piped: flat key<TAB>value lines, the parameters numbered under function.parameters.
    const rows = Object.fromEntries(r.stdout.trimEnd().split('\n').map((l) => l.split('\t') as [string, string]));
    expect(rows).toMatchObject({ id: toolIds[1], 'function.name': 'reschedule_appointment', async: 'true', type: 'function' });
    expect(rows).toMatchObject({
      'function.parameters.0.name': 'patientId',
      'function.parameters.0.required': 'true',
      'function.parameters.0.description': "the clinic's patient id",
      'function.parameters.1.name': 'newTime',
      'function.parameters.2.name': 'reason',
      'function.parameters.2.required': 'false',
      'function.parameters.2.description': '(one of conflict, sick, other)',
    });
    expect(r.stdout).not.toContain('#');
  });

  it('-o json is exactly the service body; ndjson, csv and tsv', async () => {
    const j = await runCli(['tools', 'patch', toolId, '--no-async', '-o', 'json'], { env });
    expect(j.code, j.stderr).toBe(0);
    expect(lastRequest()).toEqual({ async: false });
    expect(JSON.parse(j.stdout)).toEqual(lastResponse());
    expect(JSON.parse(j.stdout).async).toBe(false);
    const nd = await runCli(['tools', 'patch', toolId, '--async', '-o', 'ndjson'], { env });
    expect(nd.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(nd.stdout)).toEqual(lastResponse());
    const csv = await runCli(['tools', 'patch', toolId, '--async', '-o', 'csv'], { env });
    const lines = csv.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('tool_id,name,async,parameter,type,required,description');
    const declared = Object.keys(lastResponse().function.parameters.properties);
    expect(lines.slice(1).map((l) => l.split(',')[3])).toEqual(declared);
    expect(lines[1]!.startsWith(`${toolId},`)).toBe(true);
    const tsv = await runCli(['tools', 'patch', toolId, '--async', '-o', 'tsv'], { env });
    expect(tsv.stdout.split('\n')[0]).toBe('tool_id\tname\tasync\tparameter\ttype\trequired\tdescription');
  });

  it('an invalid function is refused locally, every problem listed, nothing sent (exit 3)', async () => {
    const r = await runCli(['tools', 'patch', toolId, '--function', '@fixtures/tool-function-invalid.json'], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('The function in fixtures/tool-function-invalid.json is not valid; nothing was sent');
    expect(r.stderr).toContain('function.name: "reschedule appointment" is not a valid identifier');
    expect(r.stderr).toContain('function.parameters.type: must be "object", not "array"');
    expect(r.stderr).toContain('function.parameters.required[1]: "newTime" is not declared');
    const inline = await runCli(['tools', 'patch', toolId, '--function', '{"parameters":{"type":"object"}}', '-o', 'json'], { env });
    expect(inline.code).toBe(3);
    expect(JSON.parse(inline.stderr).error.details).toEqual([{ field: 'function.name', problem: 'is missing' }]);
    expect(proxy.exchanges).toHaveLength(0);
  });

  it('malformed JSON: exit 2 with file, line and column; nothing sent', async () => {
    const r = await runCli(['tools', 'patch', toolId, '--function', '@fixtures/tool-function-malformed.json'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--function file fixtures\/tool-function-malformed\.json is not valid JSON: .* at line 6, column 3/);
    const inline = await runCli(['tools', 'patch', toolId, '--function', '{"name":'], { env });
    expect(inline.code).toBe(2);
    expect(inline.stderr).toContain('--function is not valid JSON');
    expect(proxy.exchanges).toHaveLength(0);
  });

  it('404 exits 5; nothing to change exits 2', async () => {
    const r = await runCli(['tools', 'patch', 'no-such-tool', '--async'], { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('not found');
    const other = await runCli(['tools', 'patch', sbx.organizations[1]!.tool_ids[0]!, '--async'], { env });
    expect(other.code).toBe(5);
    const none = await runCli(['tools', 'patch', toolId], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--async, --no-async or --function');
  });

  it('help has examples', async () => {
    const r = await runCli(['tools', 'patch', '--help'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('--no-async');
  });
});
