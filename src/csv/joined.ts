// Files that give the input row back with something added (rejects, eligibility results,
// outcomes): the file's own columns first, in its order, then ours. One place decides the names
// so that no two columns share one: an empty header becomes `column_N`, a repeated one `Name (2)`,
// and one of ours that the file already has becomes `outreach_<name>`.

export interface JoinedColumns {
  /** Every column name, in order: the file's, then ours. */
  columns: string[];
  /** The name each input column (by index) is written under. */
  input: string[];
  /** Our column names as written (ours[i] for the i-th of `ours`). */
  ours: string[];
}

export function joinedColumns(inputHeaders: readonly string[], ours: readonly string[]): JoinedColumns {
  const used = new Set<string>();
  const take = (name: string): string => {
    let n = name;
    for (let i = 2; used.has(n.toLowerCase()); i++) n = `${name} (${i})`;
    used.add(n.toLowerCase());
    return n;
  };
  const input = inputHeaders.map((h, i) => take(h.trim() === '' ? `column_${i + 1}` : h));
  const inputNames = new Set(input.map((n) => n.toLowerCase()));
  const mine = ours.map((c) => take(inputNames.has(c.toLowerCase()) ? `outreach_${c}` : c));
  return { columns: [...input, ...mine], input, ours: mine };
}

/** One output record: the row's values under the input names, then our values under ours. */
export function joinedRecord(j: JoinedColumns, values: readonly string[], ourValues: Readonly<Record<string, unknown>>, ours: readonly string[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  j.input.forEach((name, i) => (record[name] = values[i] ?? ''));
  ours.forEach((c, i) => (record[j.ours[i]!] = ourValues[c]));
  return record;
}
