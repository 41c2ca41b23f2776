// Counts in words: "1 row", "2 rows", "1,204 rows". The one place a count meets a noun, so that no
// screen says "1 rows" again.

/** `count noun`, the noun in the plural unless the count is exactly 1 ("row" → "rows", "entry" → "entries"). */
export function plural(count: number, noun: string, pluralForm = regularPlural(noun)): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? noun : pluralForm}`;
}

function regularPlural(noun: string): string {
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(noun)) return `${noun}es`;
  return `${noun}s`;
}
