// How deep a JSON text nests, found by a scan that cannot overflow the stack. Checked before any
// recursive walk (JSON.parse, validation, JSON.stringify): 20 KB of `[` is 10,000 levels, enough to
// overflow every one of them. Used by the sandbox and the webhook receiver.

/** Whether a JSON text nests objects/arrays deeper than `max`; brackets inside strings do not count. */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}
