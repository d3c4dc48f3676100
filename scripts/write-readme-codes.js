// Writes the README's "Error codes" tables from the one table of codes (src/codes.ts), between
// the markers that hold them. Run after `npm run build`: `node scripts/write-readme-codes.js`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCodeTables } from '../dist/codes.js';

const README = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
const START = '<!-- codes: written from src/codes.ts by scripts/write-readme-codes.js -->';
const END = '<!-- /codes -->';

const text = fs.readFileSync(README, 'utf8');
const from = text.indexOf(START);
const to = text.indexOf(END);
if (from < 0 || to < from) throw new Error(`README.md lacks the markers ${START} ... ${END}`);
fs.writeFileSync(README, `${text.slice(0, from + START.length)}\n${renderCodeTables()}\n${text.slice(to)}`);
