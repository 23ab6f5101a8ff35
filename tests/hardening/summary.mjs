#!/usr/bin/env node
/**
 * Prints the hardening figures as one section: the fuzz table (target/fuzz/summary.json), then
 * each hardening test's summary lines (target/hardening/<name>.json, written by
 * `writeFigures` in figures.ts) in the order fuzz, crash, hostile, load, liars, then any others
 * alphabetically. A test with no figures file is reported as "not run".
 *
 *   node tests/hardening/summary.mjs [--json FILE]
 *
 * With `--json FILE` it also writes everything it read as one object. It only reports: it exits 0
 * whatever the figures say.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIGURES_DIR = path.join(repo, 'target', 'hardening');
const FUZZ_SUMMARY = path.join(repo, 'target', 'fuzz', 'summary.json');
const ORDER = ['fuzz', 'crash-1', 'crash-2', 'hostile', 'load', 'liars'];

function usage(message) {
  console.error(`${message}\nusage: node tests/hardening/summary.mjs [--json FILE]`);
  process.exit(2);
}

let jsonOut;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--json') {
    jsonOut = argv[++i];
    if (!jsonOut) usage('--json needs a file name');
  } else if (a.startsWith('--json=')) {
    jsonOut = a.slice('--json='.length);
  } else if (a === '--help' || a === '-h') {
    console.log('usage: node tests/hardening/summary.mjs [--json FILE]: prints the hardening figures (and writes them to FILE)');
    process.exit(0);
  } else {
    usage(`unknown argument: ${a}`);
  }
}

/** The parsed JSON of a file, `undefined` if it does not exist, or `{ error }` if unreadable. */
function readJson(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (e && e.code === 'ENOENT') return undefined;
    return { error: `${path.basename(file)}: ${e instanceof Error ? e.message : String(e)}` };
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    return { error: `${path.basename(file)}: not JSON (${e instanceof Error ? e.message : String(e)})` };
  }
}

const num = (v, digits = 0) =>
  typeof v === 'number' && Number.isFinite(v) ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 }) : '–';

// The tests' figures.
const tests = {};
let files = [];
try {
  files = fs.readdirSync(FIGURES_DIR).filter((f) => f.endsWith('.json'));
} catch {
  // No figures directory: every test is "not run".
}
const skip = jsonOut ? path.resolve(jsonOut) : undefined;
for (const f of files) {
  const file = path.join(FIGURES_DIR, f);
  // The combined output of an earlier run (scripts/hardening-report writes it here) is no test.
  if (f === 'summary.json' || path.resolve(file) === skip) continue;
  const data = readJson(file);
  if (data !== undefined) tests[typeof data.name === 'string' && !data.error ? data.name : f.slice(0, -'.json'.length)] = data;
}
const names = [...ORDER, ...Object.keys(tests).filter((n) => !ORDER.includes(n)).sort()];

// The fuzz targets.
const fuzzRaw = readJson(FUZZ_SUMMARY);
const fuzz = fuzzRaw === undefined ? null : Array.isArray(fuzzRaw) ? fuzzRaw : { error: fuzzRaw.error ?? 'summary.json: expected an array of targets' };

const modes = [...new Set(Object.values(tests).map((t) => t.mode).filter((m) => typeof m === 'string'))].sort();
const out = [];
out.push(`hardening figures (${modes.length > 0 ? modes.join(', ') : 'none recorded'})`);

/** The fuzz table, from target/fuzz/summary.json. */
function fuzzTable() {
  if (fuzz === null) return [];
  if (!Array.isArray(fuzz)) return [`fuzz: unreadable: ${fuzz.error}`];
  let when = '';
  try {
    when = `, written ${fs.statSync(FUZZ_SUMMARY).mtime.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  } catch {
    // Gone since it was read: leave the time out.
  }
  const rows = [['target', 'execs', 'execs/s', 'crashes', 'secs']];
  for (const t of fuzz) rows.push([String(t.target ?? '?'), num(t.execs), num(t.execsPerSec), num(t.crashes), num(t.secs, 1)]);
  const totals = fuzz.reduce((a, t) => ({ execs: a.execs + (Number(t.execs) || 0), crashes: a.crashes + (Number(t.crashes) || 0) }), { execs: 0, crashes: 0 });
  rows.push(['total', num(totals.execs), '', num(totals.crashes), '']);
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return [
    `fuzz: ${fuzz.length} targets (target/fuzz/summary.json${when})`,
    ...rows.map((r) => '  ' + r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd()),
  ];
}

for (const name of names) {
  const t = tests[name];
  const table = name === 'fuzz' ? fuzzTable() : [];
  out.push(...table);
  if (t === undefined) {
    if (table.length === 0) out.push(`${name}: not run`);
  } else if (t.error) {
    out.push(`${name}: unreadable: ${t.error}`);
  } else if (!Array.isArray(t.lines) || t.lines.length === 0) {
    out.push(`${name}: ran (${t.mode ?? '?'}${t.at ? `, ${t.at}` : ''}) without summary lines`);
  } else {
    for (const l of t.lines) out.push(String(l));
  }
}

console.log(out.join('\n'));

if (jsonOut) {
  const combined = {
    modes,
    fuzz,
    tests: Object.fromEntries(names.map((n) => [n, tests[n] ?? null])),
  };
  try {
    fs.mkdirSync(path.dirname(path.resolve(jsonOut)), { recursive: true });
    fs.writeFileSync(jsonOut, JSON.stringify(combined, null, 2) + '\n');
  } catch (e) {
    console.error(`could not write ${jsonOut}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
