import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { CliError, UsageError, ValidationError } from '../../errors.js';
import type { Tool, ToolFunction, ToolUpdate } from '../../api/types.js';
import { readJsonArgument } from '../../input.js';
import { writeList, writeRecord, writeSection, type Column, type Field } from '../../output/writer.js';
import { checkToolFunction } from './checkFunction.js';
import { terminalSafe } from '../../output/safe.js';

interface Options {
  async?: boolean;
  function?: string;
  args: string[];
}

export function register(tools: Command): void {
  tools
    .command('patch')
    .alias('update')
    .description('Update a tool (PATCH /tool/{id}): whether it runs async, and its function definition')
    .argument('<id>', 'tool id (the sandbox prints its tool ids at start)')
    .option('--async', 'the assistant continues without waiting for the server')
    .option('--no-async', 'the assistant waits for the server\'s reply')
    .option('--function <json>', 'function object: inline JSON, @file or -; checked before sending')
    .addHelpText(
      'after',
      examples(
        'outreach tools patch 0b7d5c1e-... --async',
        'outreach tools patch 0b7d5c1e-... --function @fixtures/tool-function.json',
        'outreach tools patch 0b7d5c1e-... --no-async --function \'{"name":"lookup","parameters":{"type":"object","properties":{}}}\' -o json',
      ),
    )
    .action(action(run));
}

interface ParamRow {
  name: string;
  type: unknown;
  required: boolean;
  description: unknown;
}

function parameterRows(fn: ToolFunction | undefined): ParamRow[] {
  const props = fn?.parameters?.properties;
  if (!props || typeof props !== 'object') return [];
  const required = new Set(Array.isArray(fn?.parameters?.required) ? fn!.parameters!.required : []);
  return Object.entries(props).map(([name, schema]) => {
    const s = (schema && typeof schema === 'object' ? schema : {}) as Record<string, unknown>;
    const type = Array.isArray(s.type) ? s.type.join('|') : s.type ?? (s.enum ? 'enum' : undefined);
    const extra = Array.isArray(s.enum) ? ` (one of ${s.enum.map(String).join(', ')})` : '';
    return { name, type, required: required.has(name), description: typeof s.description === 'string' || extra ? `${s.description ?? ''}${extra}`.trim() : undefined };
  });
}

const FIELDS: Field<Tool>[] = [
  { label: 'id', key: 'id', value: (t) => t.id },
  { label: 'type', key: 'type', value: (t) => t.type },
  { label: 'name', key: 'function.name', value: (t) => t.function?.name },
  { label: 'description', key: 'function.description', value: (t) => t.function?.description },
  { label: 'async', key: 'async', value: (t) => t.async, kind: 'bool' },
  { label: 'strict', key: 'function.strict', value: (t) => t.function?.strict, kind: 'bool' },
  { label: 'updated', key: 'updatedAt', value: (t) => t.updatedAt, kind: 'datetime' },
];

const PARAM_COLUMNS: Column<ParamRow>[] = [
  { header: 'PARAMETER', key: 'name', value: (r) => r.name },
  { header: 'TYPE', key: 'type', value: (r) => r.type },
  { header: 'REQUIRED', key: 'required', value: (r) => r.required, kind: 'bool' },
  { header: 'DESCRIPTION', key: 'description', value: (r) => r.description, shrink: true },
];

export async function run(opts: Options, ctx: Context): Promise<void> {
  const id = (opts.args[0] ?? '').trim();
  if (!id) throw new UsageError('Give the tool id.');
  if (opts.async === undefined && opts.function === undefined) {
    throw new UsageError('Nothing to change: give --async, --no-async or --function JSON|@file.');
  }
  const body: ToolUpdate = {};
  if (opts.async !== undefined) body.async = opts.async;
  if (opts.function !== undefined) {
    const fn = await readJsonArgument(opts.function, '--function', ctx.io);
    const problems = checkToolFunction(fn);
    if (problems.length) {
      const source = opts.function.startsWith('@') ? ` in ${opts.function.slice(1)}` : '';
      throw new ValidationError(
        `The function${source} is not valid; nothing was sent:\n${problems.map((p) => `  ${p.field}: ${p.problem}`).join('\n')}`,
        { details: problems },
      );
    }
    body.function = fn as ToolFunction;
  }
  const client = await ctx.client();
  const { patchTool } = await import('../../api/tools.js');
  let result;
  try {
    result = await patchTool(client, id, body);
  } catch (err) {
    throw await unknownPatch(err, id);
  }
  const { tool, raw } = result;
  if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
    ctx.io.out(`${terminalSafe(tool.id ?? id)}\n`);
    return;
  }
  const format = ctx.globals.format;
  const params = parameterRows(tool.function);
  if (format === 'csv' || format === 'tsv') {
    // One row per parameter, with the tool beside it (a tool without parameters gives one row).
    type Flat = { param?: ParamRow };
    const rows: Flat[] = params.length ? params.map((p) => ({ param: p })) : [{}];
    await writeList<Flat>(
      ctx,
      rows,
      [
        { header: 'tool_id', value: () => tool.id },
        { header: 'name', value: () => tool.function?.name },
        { header: 'async', value: () => tool.async },
        { header: 'parameter', value: (r) => r.param?.name },
        { header: 'type', value: (r) => r.param?.type },
        { header: 'required', value: (r) => r.param?.required },
        { header: 'description', value: (r) => r.param?.description },
      ],
      raw,
    );
    return;
  }
  await writeRecord(ctx, tool, FIELDS, raw);
  // Piped: `function.parameters.<n>.name` and so on, one parameter after the other.
  await writeSection(ctx, { title: 'Parameters', key: 'function.parameters', rows: params, columns: PARAM_COLUMNS, empty: '(none)' });
}

/**
 * A PATCH whose fate is unknown (a 5xx, a gateway's page, a lost answer) may have been applied: the
 * message says so instead of a plain failure. Other failures are returned as they are.
 */
async function unknownPatch(err: unknown, id: string): Promise<unknown> {
  const { fateOf, reword } = await import('../../api/errors.js');
  if (!(err instanceof CliError) || fateOf(err) !== 'unknown') return err;
  const message = `Tool ${id}: the change may or may not have been applied: ${err.message.replace(/\.$/, '')}.`;
  const hint = ['Running the same command again is safe: it sets the same values.', err.hint].filter(Boolean).join('\n');
  return reword(err, message, { hint });
}
