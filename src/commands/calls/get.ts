import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import type { Call } from '../../api/types.js';
import { humanValue, plainValue } from '../../output/format.js';
import { writeHeading, writeRecord, type Field } from '../../output/writer.js';
import { parseCallId } from './shared.js';
import { terminalSafe } from '../../output/safe.js';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';

interface Options {
  transcript?: boolean;
  args: string[];
}

export function register(calls: Command): void {
  calls
    .command('get')
    .alias('show')
    .description('Show one call: summary, outcome, analysis (and the transcript with --transcript)')
    .argument('<id>', 'call id')
    .option('--transcript', 'also show the transcript, wrapped to the terminal width')
    .addHelpText(
      'after',
      examples('outreach calls get 17', 'outreach calls get 17 --transcript', 'outreach calls get 17 -o json | jq .analysis.custom'),
    )
    .action(action(run));
}

const FIELDS: Field<Call>[] = [
  { label: 'id', key: 'id', value: (c) => c.id },
  { label: 'status', key: 'call_status', value: (c) => c.call_status },
  { label: 'type', key: 'call_type', value: (c) => c.call_type },
  { label: 'assistant', key: 'assistant_id', value: (c) => c.assistant_id },
  { label: 'from', key: 'source_number', value: (c) => c.source_number },
  { label: 'to', key: 'destination_number', value: (c) => c.destination_number },
  { label: 'started', key: 'started_at', value: (c) => c.started_at, kind: 'datetime' },
  { label: 'ended', key: 'ended_at', value: (c) => c.ended_at, kind: 'datetime' },
  { label: 'duration', key: 'duration_ms', value: (c) => c.duration_ms, kind: 'duration' },
  { label: 'outcome', key: 'outcome', value: (c) => c.outcome, style: (t, c, chalk) => (c.failure_reason ? chalk.yellow(t) : chalk.green(t)) },
  { label: 'failure reason', key: 'failure_reason', value: (c) => c.failure_reason, style: (t, _c, chalk) => chalk.yellow(t) },
  { label: 'ended reason', key: 'ended_reason', value: (c) => c.ended_reason },
  { label: 'summary', key: 'summary', value: (c) => c.summary },
];

/** The analysis as fields: the two counts, then any other field, then each custom field (`analysis.custom.<key>`). */
function analysisFields(call: Call): Field<Call>[] {
  const a = (call.analysis ?? {}) as Partial<Call['analysis']> & Record<string, unknown>;
  const field = (label: string, key: string, value: unknown): Field<Call> => ({ label, key, value: () => value, kind: typeof value === 'boolean' ? 'bool' : undefined });
  const fields = [field('repetitions', 'analysis.repetition_count', a.repetition_count), field('interruptions', 'analysis.interruption_count', a.interruption_count)];
  for (const [k, v] of Object.entries(a)) {
    if (k === 'repetition_count' || k === 'interruption_count' || k === 'custom') continue;
    fields.push(field(k, `analysis.${k}`, v));
  }
  const custom = a.custom && typeof a.custom === 'object' ? (a.custom as Record<string, unknown>) : {};
  for (const [k, v] of Object.entries(custom)) fields.push(field(`custom.${k}`, `analysis.custom.${k}`, v));
  return fields;
}

/** Wraps text to `width` display columns at spaces (CJK and emoji count double); long words are cut. */
export function wrapText(text: string, width: number, indent = 0): string[] {
  const avail = Math.max(10, width - indent);
  const lines = wrapAnsi(text.replace(/\s+/g, ' ').trim(), avail, { hard: true }).split('\n');
  return lines.map((l, i) => (i === 0 ? l : ' '.repeat(indent) + l));
}

/** Each transcript turn wrapped with a hanging indent after its speaker label ("AI: ", "User: "). */
export function wrapTranscript(transcript: string, width: number, label: (s: string) => string = (s) => s): string[] {
  const lines: string[] = [];
  for (const turn of transcript.split(/\r?\n/)) {
    const m = /^([A-Za-z][\w .-]{0,20}):\s+(.*)$/.exec(turn);
    if (!m) {
      lines.push(...wrapText(turn, width));
      continue;
    }
    const speaker = `${m[1]}: `;
    const wrapped = wrapText(m[2]!, width - stringWidth(speaker));
    lines.push(label(speaker) + wrapped[0], ...wrapped.slice(1).map((l) => ' '.repeat(stringWidth(speaker)) + l));
  }
  return lines;
}

export async function run(opts: Options, ctx: Context): Promise<void> {
  const id = parseCallId(opts.args[0] ?? '');
  const client = await ctx.client();
  const { getCall } = await import('../../api/calls.js');
  const { call, raw } = await getCall(client, id);
  const format = ctx.globals.format;
  if (format === 'json' || format === 'ndjson') {
    await writeRecord(ctx, call, FIELDS, raw);
    return;
  }
  const analysis = analysisFields(call);
  if (format !== 'table' || !ctx.io.isStdoutTTY) {
    // For scripts: one flat record, the analysis under dotted keys, the transcript on one line.
    const transcript: Field<Call>[] = opts.transcript ? [{ label: 'transcript', key: 'transcript', value: (c) => c.transcript }] : [];
    await writeRecord(ctx, call, [...FIELDS, ...analysis, ...transcript], raw);
    return;
  }
  await writeRecord(ctx, call, FIELDS, raw);
  await writeHeading(ctx, 'Analysis');
  await writeRecord(ctx, call, analysis, raw);
  if (opts.transcript) {
    await writeHeading(ctx, 'Transcript');
    // Multi-line by nature: line breaks and tabs kept, every other control character shown (`\e`).
    const text = terminalSafe(typeof call.transcript === 'string' ? call.transcript : plainValue(call.transcript), { multiline: true });
    const chalk = await ctx.io.chalk();
    const width = Math.max(20, (ctx.io.columns || 80) - 1);
    ctx.io.out(`${wrapTranscript(text, width, (s) => chalk.bold(s)).join('\n')}\n`);
  } else if (humanValue(call.transcript)) {
    ctx.info('(add --transcript to see the transcript)');
  }
}
