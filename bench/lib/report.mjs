// Statistics and the comparison table every benchmark prints.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Nearest-rank percentile (p in 0..100) of numbers. */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

export const median = (values) => percentile(values, 50);

export function formatMs(ms) {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 100) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(0)} ms`;
}

export function formatKiB(kib) {
  if (!Number.isFinite(kib)) return 'n/a';
  return kib < 10240 ? `${(kib / 1024).toFixed(1)} MiB` : `${(kib / 1024).toFixed(0)} MiB`;
}

function formatRatio(r) {
  if (!Number.isFinite(r)) return 'n/a';
  if (r < 0.1) return `${r.toFixed(3)}× (1/${(1 / r).toFixed(0)})`;
  return `${r.toFixed(2)}×`;
}

/**
 * Prints a table comparing glovebox (a) with the reference (b).
 * rows: [{ metric, a, b, format, target?: {ratio, text} | {max, text} }];
 * a/b are numbers (NaN when not measured). The ratio is a / b (lower is
 * better for every metric here). A target is either a ratio to the peer or
 * an absolute limit on glovebox's figure (met when a < max); "met" is
 * informational only.
 */
function targetMet(r, ratio) {
  if (!r.target) return '';
  if (r.target.max !== undefined) return Number.isFinite(r.a) ? (r.a < r.target.max ? 'yes' : 'NO') : '';
  return Number.isFinite(ratio) ? (ratio <= r.target.ratio ? 'yes' : 'NO') : '';
}

export function printComparison(title, names, rows, footer = 'ratio = glovebox / reference (lower is better); targets are not asserted.') {
  const header = ['metric', names[0], names[1], 'ratio', 'target', 'met'];
  const table = rows.map((r) => {
    const ratio = r.a / r.b;
    const met = targetMet(r, ratio);
    return [r.metric, r.format(r.a), r.format(r.b), formatRatio(ratio), r.target?.text ?? '', met];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const row of table) console.log(line(row));
  console.log(`\n${footer}`);
}

/** Writes results as JSON to $BENCH_RESULTS_DIR/<name>.json when set. */
export function saveResults(name, results) {
  const dir = process.env.BENCH_RESULTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(results, null, 2) + '\n');
}
