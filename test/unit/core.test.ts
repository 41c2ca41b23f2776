import { describe, expect, it } from 'vitest';
import { findCommandName } from '../../src/cli-args.js';
import { globalsFrom } from '../../src/command.js';
import { maskKey } from '../../src/config/profiles.js';
import { checkBaseUrl, resolveSettings } from '../../src/config/settings.js';
import { describeJsonError } from '../../src/input.js';
import { csvField, formatDuration, formatMoney, plainValue, tsvField } from '../../src/output/format.js';
import type { ProfileStore } from '../../src/config/profiles.js';

describe('findCommandName skips global options and their values', () => {
  it.each([
    [['health'], 'health'],
    [['-o', 'json', 'calls', 'list'], 'calls'],
    [['--profile', 'prod', '--debug', 'api', 'GET', '/x'], 'api'],
    [['--base-url', 'http://x', '--request-timeout', '5', 'health'], 'health'],
    [['--help'], undefined],
  ])('%j → %s', (argv, name) => expect(findCommandName(argv)).toBe(name));
});

describe('global options', () => {
  it('defaults', () => {
    const g = globalsFrom({}, {});
    expect(g).toMatchObject({ format: 'table', quiet: false, debug: false, requestTimeoutSec: 30, noInput: false });
  });
  it('--json and -o', () => {
    expect(globalsFrom({ json: true }, {}).format).toBe('json');
    expect(globalsFrom({ output: 'ndjson' }, {}).format).toBe('ndjson');
    expect(() => globalsFrom({ output: 'xml' }, {})).toThrow(/Unknown output format "xml"/);
    expect(() => globalsFrom({ json: true, output: 'csv' }, {})).toThrow(/disagree/);
  });
  it('request timeout from flag or env, checked', () => {
    expect(globalsFrom({ requestTimeout: '2.5' }, {}).requestTimeoutSec).toBe(2.5);
    expect(globalsFrom({}, { OUTREACH_TIMEOUT: '7' }).requestTimeoutSec).toBe(7);
    expect(() => globalsFrom({ requestTimeout: 'abc' }, {})).toThrow(/--request-timeout "abc"/);
    expect(() => globalsFrom({}, { OUTREACH_TIMEOUT: '-1' })).toThrow(/OUTREACH_TIMEOUT/);
  });
  it('CI and OUTREACH_NO_INPUT forbid prompts', () => {
    expect(globalsFrom({}, { CI: 'true' }).noInput).toBe(true);
    expect(globalsFrom({}, { OUTREACH_NO_INPUT: '1' }).noInput).toBe(true);
    expect(globalsFrom({ input: false }, {}).noInput).toBe(true);
    expect(globalsFrom({}, { CI: 'false' }).noInput).toBe(false);
  });
});

describe('settings precedence: flag > env > profile > default', () => {
  const fakeStore = (profiles: Record<string, { baseUrl?: string; apiKey?: string }>, active?: string) =>
    async () =>
      ({
        activeName: active,
        get: (n: string) => profiles[n],
        profiles: () => profiles,
      }) as unknown as ProfileStore;

  it('never opens the config when the environment gives key and URL', async () => {
    const s = await resolveSettings({}, { OUTREACH_API_KEY: 'k1', OUTREACH_BASE_URL: 'http://e/v1' }, async () => {
      throw new Error('config opened');
    });
    expect(s).toMatchObject({ apiKey: 'k1', apiKeySource: 'env', baseUrl: 'http://e/v1', baseUrlSource: 'env' });
  });
  it('flag beats env beats profile', async () => {
    const store = fakeStore({ p: { baseUrl: 'http://p/v1', apiKey: 'kp' } }, 'p');
    expect((await resolveSettings({ baseUrl: 'http://f/v1' }, { OUTREACH_BASE_URL: 'http://e/v1' }, store)).baseUrl).toBe('http://f/v1');
    expect((await resolveSettings({}, { OUTREACH_BASE_URL: 'http://e/v1' }, store)).baseUrl).toBe('http://e/v1');
    const fromProfile = await resolveSettings({}, {}, store);
    expect(fromProfile).toMatchObject({ baseUrl: 'http://p/v1', apiKey: 'kp', apiKeySource: 'profile', profileName: 'p' });
    expect((await resolveSettings({}, { OUTREACH_API_KEY: 'ke' }, store)).apiKey).toBe('ke');
  });
  it('OUTREACH_PROFILE picks the profile; an unknown one is an auth error', async () => {
    const store = fakeStore({ a: { apiKey: 'ka' }, b: { apiKey: 'kb' } }, 'a');
    expect((await resolveSettings({}, { OUTREACH_PROFILE: 'b' }, store)).apiKey).toBe('kb');
    await expect(resolveSettings({ profile: 'zz' }, {}, store)).rejects.toMatchObject({ exitCode: 4 });
  });
  it('invalid base URLs are usage errors', () => {
    expect(() => checkBaseUrl('not a url', '--base-url')).toThrow(/Invalid base URL from --base-url/);
    expect(() => checkBaseUrl('ftp://x/v1', '--base-url')).toThrow(/only http and https/);
    expect(checkBaseUrl('http://x/v1/', 'f')).toBe('http://x/v1');
  });
});

describe('small formatting helpers', () => {
  it('masks keys to the last 4 characters', () => {
    expect(maskKey('sk_live_abcdef1234')).toBe('****1234');
    expect(maskKey('abc')).toBe('****');
  });
  it('formats money and durations', () => {
    expect(formatMoney('1500')).toBe('$1,500.00');
    expect(formatMoney('25.5')).toBe('$25.50');
    expect(formatDuration(65_000)).toBe('1m 05s');
    expect(formatDuration(3_720_000)).toBe('1h 2m');
    expect(formatDuration(4_000)).toBe('4s');
  });
  it('quotes CSV and flattens TSV', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('plain')).toBe('plain');
    expect(tsvField('a\tb\nc')).toBe('a b c');
    expect(plainValue('2026-11-23T10:00:00.000Z', 'datetime')).toBe('2026-11-23T10:00:00.000Z');
  });
  it('gives line and column of JSON syntax errors', () => {
    const text = '{\n  "a": 1,\n  "b": }';
    let err: unknown;
    try {
      JSON.parse(text);
    } catch (e) {
      err = e;
    }
    expect(describeJsonError(text, err)).toMatch(/line 3, column 8/);
  });
});

describe('jsonErrorOffset', () => {
  it.each([
    ['{"a": 1}', -1],
    ['[1, 2, ]', 7],
    ['{"a" 1}', 5],
    ['{"a": tru}', 6],
    ['{"a": 1', 7],
    ['{"a": 1} x', 9],
    ['"\\x"', 2],
  ])('%s → %i', async (text, offset) => {
    const { jsonErrorOffset } = await import('../../src/jsonPosition.js');
    expect(jsonErrorOffset(text)).toBe(offset);
  });
});
