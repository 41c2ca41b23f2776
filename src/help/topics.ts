// Help topics, like gh's `gh help environment`: what every command shares, kept out of the root help
// so that it fits a 24-row terminal. `outreach help <topic>`; the root help lists them.
import type { Command, Help } from 'commander';
import { examples } from '../command.js';

export interface Topic {
  name: string;
  summary: string;
  /** The text, laid out by the caller; `options` is built from the program's own option list. */
  text(program: Command, helper: Help): string;
}

type Item = [term: string, description: string];

/** Terms and their descriptions, aligned, each description wrapped under itself. */
function items(helper: Help, list: Item[], indent = ''): string {
  const termWidth = Math.max(...list.map(([term]) => helper.displayWidth(term)));
  return list.map(([term, text]) => helper.formatItem(indent + term, termWidth + indent.length, text, helper)).join('\n');
}

const ENVIRONMENT: Item[] = [
  ['OUTREACH_API_KEY', 'API key; wins over the stored one and, unlike it, is sent to any base URL'],
  ['OUTREACH_BASE_URL', 'service address including /v1 (--base-url)'],
  ['OUTREACH_PROFILE', 'stored profile to use (--profile)'],
  ['OUTREACH_CONFIG_DIR', 'where profiles are stored (default: ~/.config/outreach)'],
  ['OUTREACH_TIMEOUT', 'per-request timeout in seconds (--request-timeout)'],
  ['OUTREACH_NO_INPUT=1', 'never prompt (--no-input); CI=true does the same'],
  ['OUTREACH_DEBUG=1', 'HTTP trace on stderr, secrets redacted (--debug)'],
  ['NO_COLOR, FORCE_COLOR', 'colour off, or forced on'],
  ['HTTPS_PROXY, HTTP_PROXY', 'proxy for the service (NO_PROXY: hosts reached directly)'],
  ['NODE_EXTRA_CA_CERTS', "extra certificate authorities (a hospital network's)"],
];

const EXIT_CODES: Item[] = [
  ['0', 'success'],
  ['1', 'the service failed or answered something unexpected'],
  ['2', 'usage error or unreadable input, cancelled at a prompt, or the journal is locked by another run'],
  ['3', 'validation failed: rows or fields rejected, unsupported payer, --fail-inactive'],
  ['4', 'authentication: no key, or the service answered 401/403'],
  ['5', 'not found (404)'],
  ['6', 'network: the service is unreachable or timed out after retries'],
  ['7', 'incomplete: some work done, some not; the message says how to resume'],
  ['124', 'watch or --wait gave up at --timeout'],
  ['130', 'interrupted (Ctrl-C); partial work is recorded as for 7'],
];

const FORMATS: Item[] = [
  ['table', 'the default on a terminal: columns that fit its width'],
  ['json', 'what the service returned, as one JSON document (--json is the same)'],
  ['ndjson', 'one JSON record per line'],
  ['csv, tsv', 'comma- or tab-separated, with a header of the JSON field names'],
];

export const TOPICS: Topic[] = [
  {
    name: 'environment',
    summary: 'Environment variables',
    text: (_program, helper) =>
      `Environment variables (a flag wins over its variable):\n\n${items(helper, ENVIRONMENT)}\n\n` +
      'A stored key goes only to the service it was stored for. There is no --api-key flag: it would show in `ps` and shell history.\n',
  },
  {
    name: 'exit-codes',
    summary: 'What each exit code means',
    text: (_program, helper) =>
      `Exit codes, the same for every command:\n\n${items(helper, EXIT_CODES.map(([c, t]) => [c.padStart(3), t]))}\n\n` +
      'A run that ends several ways at once (several checks watched) exits with the highest code.\n',
  },
  {
    name: 'formats',
    summary: 'Output formats: table, json, ndjson, csv, tsv',
    text: (_program, helper) =>
      `Output formats (-o, --output):\n\n${items(helper, FORMATS)}\n\n` +
      'Piped without -o, a table becomes tab-separated lines with ISO dates, for cut and awk. -q prints only the essential result (ids), one a line.\n\n' +
      'Data goes to stdout; progress, prompts, warnings and errors go to stderr. With -o json, an error is also one JSON object on stderr: {"error": {"code", "message", "status", "details"}}.\n\n' +
      'In csv and tsv, cells a spreadsheet would run as a formula (starting with =, @, + or -) are neutralised.\n' +
      examples('outreach calls list -o json | jq \'.[].id\'', 'outreach calls list --since 7d -o csv > calls.csv', 'id=$(outreach eligibility check --input request.json -q)'),
  },
  {
    name: 'options',
    summary: 'Options every command takes',
    text: (program, helper) => {
      const options = helper.visibleOptions(program).filter((o) => !['help', 'version'].includes(o.attributeName()));
      const list: Item[] = options.map((o) => [helper.optionTerm(o), helper.optionDescription(o)]);
      return `Options every command takes, before or after its name:\n\n${items(helper, list)}\n` + examples('outreach calls list -o json --profile prod', 'outreach --base-url http://127.0.0.1:4010/v1 health');
    },
  },
];

export function findTopic(name: string | undefined): Topic | undefined {
  return TOPICS.find((t) => t.name === name);
}
