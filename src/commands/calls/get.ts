import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import type { Call } from '../../api/types.js';
import { humanValue, plainValue } from '../../output/format.js';
import { writeHeading, writeRecord, type Field } from '../../output/writer.js';
import { parseCallId } from './shared.js';
import { terminalSafe } from '../../output/safe.js';

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
  { label: 'id', value: (c) => c.id },
  { label: 'status', value: (c) => c.call_status },
  { label: 'type', value: (c) => c.call_type },
  { label: 'assistant', value: (c) => c.assistant_id },
  { label: 'from', value: (c) => c.source_number },
  { label: 'to', value: (c) => c.destination_number },
  { label: 'started', value: (c) => c.started_at, kind: 'datetime' },
  { label: 'ended', value: (c) => c.ended_at, kind: 'datetime' },
  { label: 'duration', value: (c) => c.duration_ms, kind: 'duration' },
  { label: 'outcome', value: (c) => c.outcome, style: (t, c, chalk) => (c.failure_reason ? chalk.yellow(t) : chalk.green(t)) },
  { label: 'failure reason', value: (c) => c.failure_reason, style: (t, _c, chalk) => chalk.yellow(t) },
  { label: 'ended reason', value: (c) => c.ended_reason },
  { label: 'summary', value: (c) => c.summary },
];

/** The analysis as rows: the two counts, then each custom field. */
function analysisRows(call: Call): Array<{ key: string; value: unknown; kind?: 'bool' }> {
  const a = (call.analysis ?? {}) as Partial<Call['analysis']> & Record<string, unknown>;
  const rows: Array<{ key: string; value: unknown; kind?: 'bool' }> = [
    { key: 'repetitions', value: a.repetition_count },
    { key: 'interruptions', value: a.interruption_count },
  ];
  for (const [k, v] of Object.entries(a)) {
    if (k === 'repetition_count' || k === 'interruption_count' || k === 'custom') continue;
    rows.push({ key: k, value: v, kind: typeof v === 'boolean' ? 'bool' : undefined });
  }
  const custom = a.custom && typeof a.custom === 'object' ? (a.custom as Record<string, unknown>) : {};
  for (const [k, v] of Object.entries(custom)) rows.push({ key: `custom.${k}`, value: v, kind: typeof v === 'boolean' ? 'bool' : undefined });
  return rows;
}

/** Wraps text to `width` columns at spaces; long words are cut. */
export function wrapText(text: string, width: number, indent = 0): string[] {
  const avail = Math.max(10, width - indent);
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let w = word;
    while (w.length > avail) {
      if (line) {
        out.push(line);
        line = '';
      }
      out.push(w.slice(0, avail));
      w = w.slice(avail);
    }
    if (!line) line = w;
    else if (line.length + 1 + w.length <= avail) line += ` ${w}`;
    else {
      out.push(line);
      line = w;
    }
  }
  if (line || out.length === 0) out.push(line);
  return out.map((l, i) => (i === 0 ? l : ' '.repeat(indent) + l));
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
    const wrapped = wrapText(m[2]!, width - speaker.length);
    lines.push(label(speaker) + wrapped[0], ...wrapped.slice(1).map((l) => ' '.repeat(speaker.length) + l));
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
  const rows = analysisRows(call);
  if (format === 'csv' || format === 'tsv') {
    const fields: Field<Call>[] = [
      ...FIELDS,
      ...rows.map((r) => ({ label: r.key, value: () => r.value })),
      ...(opts.transcript ? [{ label: 'transcript', value: (c: Call) => c.transcript }] : []),
    ];
    await writeRecord(ctx, call, fields, raw);
    return;
  }
  await writeRecord(ctx, call, FIELDS, raw);
  await writeHeading(ctx, 'Analysis');
  await writeRecord(
    ctx,
    call,
    rows.map((r) => ({ label: r.key, value: () => r.value, kind: r.kind })),
    raw,
  );
  if (opts.transcript) {
    await writeHeading(ctx, 'Transcript');
    // Multi-line by nature: line breaks and tabs kept, every other control character shown (`\e`).
    const text = terminalSafe(typeof call.transcript === 'string' ? call.transcript : plainValue(call.transcript), { multiline: true });
    if (!ctx.io.isStdoutTTY) {
      // Piped: the transcript as the service has it, one turn per line, for grep and friends.
      ctx.io.out(text.endsWith('\n') || text === '' ? text : `${text}\n`);
      return;
    }
    const chalk = await ctx.io.chalk();
    const width = Math.max(20, (ctx.io.columns || 80) - 1);
    ctx.io.out(`${wrapTranscript(text, width, (s) => chalk.bold(s)).join('\n')}\n`);
  } else if (ctx.io.isStdoutTTY && humanValue(call.transcript)) {
    ctx.info('(add --transcript to see the transcript)');
  }
}
