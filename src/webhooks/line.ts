// One delivery as one line on a terminal, fitted to its width: the time, the kind, then the parts of
// the summary (classify.ts) and what became of the delivery (attempt, forward answer). Ids,
// statuses, outcomes and the forward's status are never cut; free text is clipped first, then
// extras (duration, step) are left out (fit.ts). No patient data: see classify.ts.
import type { ChalkInstance } from 'chalk';
import { KIND_WIDTH, shown, summaryParts, type DeliveryKind } from './classify.js';
import { renderLine, type LinePart } from './fit.js';
import type { Delivery } from './listener.js';

type Style = (s: string) => string;

function kindStyle(kind: DeliveryKind, chalk: ChalkInstance): Style {
  return { eligibility: chalk.cyan, 'end-of-call': chalk.green, 'end-of-sequence': chalk.magenta, unrecognised: chalk.yellow }[kind];
}

/** What the delivery is beyond its body (a repeat, a retry) and what became of it (the forward's answer). */
function outcomeParts(d: Delivery, chalk: ChalkInstance): LinePart[] {
  const parts: LinePart[] = [];
  if (d.kind === 'unrecognised' && d.event) parts.push({ text: `(event ${shown(d.event)})`, role: 'key' });
  if (d.repeat) parts.push({ text: 'repeat', role: 'key', style: chalk.yellow });
  if (d.attempt && d.attempt > 1) parts.push({ text: `attempt ${d.attempt}`, role: 'key', style: chalk.dim });
  const f = d.forward;
  if (f?.status === undefined && f) {
    parts.push({ text: '→ failed', role: 'key', style: chalk.red });
    parts.push({ text: `(${shown(f.error)})`, role: 'free', style: chalk.red });
  } else if (f?.status !== undefined) {
    const ok = f.status >= 200 && f.status < 300;
    parts.push({ text: `→ ${f.status}${f.note ? ` (${shown(f.note)})` : ''}`, role: 'key', style: ok ? chalk.green : chalk.red });
  }
  return parts;
}

/** The line for a delivery, at most `columns` wide unless its ids and statuses alone are wider. */
export function deliveryLine(d: Delivery, columns: number, chalk: ChalkInstance): string {
  const kind = d.kind === 'unrecognised' ? 'unrecognised delivery' : d.kind.padEnd(KIND_WIDTH);
  const head: LinePart[] = [
    { text: d.received_at.slice(11, 19), role: 'key', style: chalk.dim },
    { text: kind, role: 'key', style: kindStyle(d.kind, chalk) },
  ];
  const parts = [...head, ...summaryParts(d.kind, d.body), ...outcomeParts(d, chalk)];
  return renderLine(parts, columns);
}
