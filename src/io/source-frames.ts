// Code frames for the dashboard: the lines around a diagnostic's place, read from a file the
// service already built from (a build input or a manifest), never from any other path.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Diagnostic } from '../workspace/diagnostics.js';

const BEFORE = 2;
const AFTER = 1;
const MAX_LINE = 240;
const MAX_FILE = 2 * 1024 * 1024;

/** `file:line` -> the frame, for each diagnostic whose file is in `readable`. */
export async function sourceFrames(root: string, diagnostics: readonly Pick<Diagnostic, 'file' | 'line' | 'column'>[], readable: (file: string) => boolean): Promise<Record<string, string>> {
  const frames: Record<string, string> = {};
  const byFile = new Map<string, Pick<Diagnostic, 'file' | 'line' | 'column'>[]>();
  for (const d of diagnostics) {
    if (!d.file || !d.line || !readable(d.file)) continue;
    if (!byFile.has(d.file)) byFile.set(d.file, []);
    byFile.get(d.file)!.push(d);
  }
  for (const [file, list] of byFile) {
    const absolute = path.resolve(root, file);
    if (path.relative(root, absolute).startsWith('..')) continue;
    let lines: string[];
    try {
      const stat = await fs.stat(absolute);
      if (!stat.isFile() || stat.size > MAX_FILE) continue;
      lines = (await fs.readFile(absolute, 'utf8')).split(/\r?\n/);
    } catch {
      continue; // gone since the build: no frame rather than a wrong one
    }
    for (const d of list) frames[`${file}:${d.line}`] = frame(lines, d.line!, d.column);
  }
  return frames;
}

function frame(lines: readonly string[], line: number, column: number | undefined): string {
  const first = Math.max(1, line - BEFORE);
  const last = Math.min(lines.length, line + AFTER);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n += 1) {
    const text = (lines[n - 1] ?? '').slice(0, MAX_LINE);
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${text}`);
    if (n === line && column) out.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.min(column - 1, MAX_LINE))}^`);
  }
  return out.join('\n');
}
