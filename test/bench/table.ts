// Prints rows as an aligned text table.
export type Row = Record<string, string | number>;

export function formatTable(title: string, rows: Row[]): string {
  if (rows.length === 0) return `${title}\n  (no rows)\n`;
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: string | number | undefined) => (v === undefined ? '' : typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) => '  ' + values.map((v, i) => v.padEnd(widths[i])).join('  ');
  return [title, line(columns), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n') + '\n';
}
