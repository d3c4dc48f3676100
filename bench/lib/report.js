// The table of results: one row per target of issue 6, then the raw medians and p90s.

const COMPARE = {
  '<=': (a, b) => a <= b,
  '<': (a, b) => a < b,
  '>=': (a, b) => a >= b,
  '>': (a, b) => a > b,
};

/** Fills `ratio` (ours / baseline, medians) and `pass` of a row. */
export function judge(row) {
  row.ratio = row.baseline && Number.isFinite(row.baseline.median) && row.baseline.median > 0 ? row.ours.median / row.baseline.median : null;
  row.target = row.checks.map((check) => `${check.on === 'ratio' ? 'ratio' : (check.label ?? 'ours p50')} ${check.op} ${check.on === 'ratio' ? String(check.value) : `${check.value} ${row.unit}`}`).join(', ');
  if (row.checks.length === 0) {
    row.target = '- (information)';
    row.pass = null;
    return row;
  }
  if (row.failed) {
    row.pass = false;
    return row;
  }
  row.pass = row.checks.every((check) => {
    const value = check.on === 'ratio' ? row.ratio : row.ours.median;
    return value !== null && Number.isFinite(value) && COMPARE[check.op](value, check.value);
  });
  return row;
}

const format = (value, unit) => {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-';
  if (unit === 'req/s') return value.toFixed(0);
  if (unit === 'MB') return value.toFixed(1);
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
};

/** The range of a series next to its median: [min-max]. */
const spread = (series, unit) => `[${format(series.min, unit)}-${format(series.max, unit)}]`;

function table(header, rows) {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => String(row[column]).length)));
  const line = (cells) => `| ${cells.map((cell, column) => String(cell).padEnd(widths[column])).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

export function resultsTable(rows) {
  return table(
    ['measure', 'ours (median [min-max])', 'baseline (median [min-max])', 'ratio', 'target', 'result'],
    rows.map((row) => [
      row.measure,
      `${format(row.ours.median, row.unit)} ${row.unit} ${spread(row.ours, row.unit)}`,
      row.baseline ? `${format(row.baseline.median, row.unit)} ${row.unit} ${spread(row.baseline, row.unit)} (${row.baselineName})` : '-',
      row.ratio === null ? '-' : row.ratio.toFixed(2),
      row.target,
      row.failed ? `FAIL (${row.failed})` : row.pass === null ? 'info' : row.pass ? 'pass' : 'FAIL',
    ]),
  );
}

export function rawTable(rows) {
  const series = [];
  for (const row of rows) {
    series.push([row.id, 'ours', row.unit, row.ours.n, format(row.ours.median, row.unit), format(row.ours.p90, row.unit), format(row.ours.min, row.unit), format(row.ours.max, row.unit)]);
    if (row.baseline) {
      series.push([row.id, row.baselineName, row.unit, row.baseline.n, format(row.baseline.median, row.unit), format(row.baseline.p90, row.unit), format(row.baseline.min, row.unit), format(row.baseline.max, row.unit)]);
    }
  }
  return table(['row', 'series', 'unit', 'n', 'median', 'p90', 'min', 'max'], series);
}
