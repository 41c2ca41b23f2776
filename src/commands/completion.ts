// Shell completion scripts generated from the command tree, so they never drift from it.
import type { Command } from 'commander';
import { action, examples } from '../command.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { registerAll } from './manifest.js';

export function register(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      examples(
        'outreach completion bash > /etc/bash_completion.d/outreach',
        'outreach completion zsh > "${fpath[1]}/_outreach"',
        'outreach completion fish > ~/.config/fish/completions/outreach.fish',
      ),
    )
    .action(action(async (opts, ctx) => run(opts, ctx, program)));
}

interface Node {
  name: string;
  summary: string;
  options: string[];
  children: Node[];
}

function walk(cmd: Command): Node {
  return {
    name: cmd.name(),
    summary: cmd.description().split('\n')[0] ?? '',
    options: cmd.options.flatMap((o) => [o.long, o.short].filter((x): x is string => Boolean(x))),
    children: cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).map(walk),
  };
}

export function bashScript(root: Node): string {
  const globals = root.options.join(' ');
  const nouns = root.children.map((c) => c.name).join(' ');
  const cases = root.children
    .map((noun) => {
      const verbs = noun.children.map((v) => v.name).join(' ');
      const verbCases = noun.children
        .map((v) => `          ${v.name}) opts="${v.options.join(' ')}" ;;`)
        .join('\n');
      return `      ${noun.name})
        if [ "$COMP_CWORD" -eq 2 ] && [ -n "${verbs}" ]; then
          COMPREPLY=($(compgen -W "${verbs} ${noun.options.join(' ')}" -- "$cur")); return
        fi
        case "\${COMP_WORDS[2]}" in
${verbCases}
          *) opts="${noun.options.join(' ')}" ;;
        esac ;;`;
    })
    .join('\n');
  return `# outreach completion for bash. Load with: source <(outreach completion bash)
_outreach() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" opts=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${nouns} ${globals}" -- "$cur")); return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$opts ${globals}" -- "$cur"))
}
complete -o default -F _outreach outreach
`;
}

export function zshScript(root: Node): string {
  return `#compdef outreach
# outreach completion for zsh (uses bash completion compatibility).
autoload -U +X bashcompinit && bashcompinit
${bashScript(root).replace(/^# .*\n/, '')}`;
}

export function fishScript(root: Node): string {
  const esc = (s: string) => s.replace(/'/g, "\\'");
  const lines = ['# outreach completion for fish', 'complete -c outreach -f'];
  for (const o of root.options.filter((o) => o.startsWith('--'))) lines.push(`complete -c outreach -l ${o.slice(2)}`);
  for (const noun of root.children) {
    lines.push(`complete -c outreach -n '__fish_use_subcommand' -a ${noun.name} -d '${esc(noun.summary)}'`);
    for (const verb of noun.children) {
      lines.push(
        `complete -c outreach -n '__fish_seen_subcommand_from ${noun.name}' -a ${verb.name} -d '${esc(verb.summary)}'`,
      );
      for (const o of verb.options.filter((o) => o.startsWith('--'))) {
        lines.push(`complete -c outreach -n '__fish_seen_subcommand_from ${verb.name}' -l ${o.slice(2)}`);
      }
    }
    for (const o of noun.options.filter((o) => o.startsWith('--'))) {
      lines.push(`complete -c outreach -n '__fish_seen_subcommand_from ${noun.name}' -l ${o.slice(2)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export async function run(opts: { args: string[] }, ctx: Context, program: Command): Promise<void> {
  const shell = opts.args[0];
  const generators: Record<string, (n: Node) => string> = { bash: bashScript, zsh: zshScript, fish: fishScript };
  const generate = shell ? generators[shell] : undefined;
  if (!generate) throw new UsageError(`Unsupported shell "${shell}": use bash, zsh or fish.`);
  await registerAll(program);
  ctx.io.out(generate(walk(program)));
}
