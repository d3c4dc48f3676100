// A replay trace for a person: one line per module change, aligned columns, coloured on a
// terminal, plain when piped.
import type { TraceStep } from '../store/replay.js';
import type { ModuleReport } from '../store/selectors.js';

const COLOURS = { valid: 32, invalid: 31, pending: 33, removed: 90, dim: 2 } as const;

export function formatTrace(steps: readonly TraceStep[], { color }: { color: boolean }): string {
  const paint = (code: number, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const statusOf = (module: ModuleReport | null) => (module ? module.status : 'removed');
  const rows = steps.flatMap(({ event, changes }) =>
    changes.map((change) => ({
      seq: String(event.seq),
      time: event.time.slice(11, 23),
      type: event.type,
      module: change.specifier,
      from: change.from ? statusOf(change.from) : 'new',
      to: statusOf(change.to),
      detail: (change.to?.diagnostics ?? [])
        .map((d) => `${d.kind}${d.file ? ` ${d.file}${d.line ? `:${d.line}${d.column ? `:${d.column}` : ''}` : ''}` : ''} ${d.message}`)
        .join('; '),
    })),
  );
  if (rows.length === 0) return 'no module changed its status or diagnostics in these events\n';
  const width = (key: 'seq' | 'time' | 'type' | 'module' | 'from') => Math.max(...rows.map((row) => row[key].length));
  const widths = { seq: width('seq'), time: width('time'), type: width('type'), module: width('module'), from: width('from') };
  return rows
    .map((row) => {
      const to = paint(COLOURS[row.to as keyof typeof COLOURS] ?? 0, row.to);
      const line = `${row.seq.padStart(widths.seq)}  ${paint(COLOURS.dim, row.time.padEnd(widths.time))}  ${row.type.padEnd(widths.type)}  ${row.module.padEnd(widths.module)}  ${row.from.padEnd(widths.from)} -> ${to}`;
      return row.detail ? `${line}  ${row.detail}` : line;
    })
    .join('\n')
    .concat('\n');
}
