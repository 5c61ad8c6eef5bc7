#!/usr/bin/env node
// Summarises the results of the conformance runs made by scripts/conformance.sh.
//
//   node scripts/conformance-report.mjs --expected FILE RUN_DIR...
//
// Each RUN_DIR (named after the run, e.g. .../2025-11-25) holds:
//   scenarios.txt  output of the CLI's `list` for that run (which scenarios must appear)
//   exit           the CLI's exit status (124 = killed by the suite timeout)
//   results/       the CLI's -o directory: server-<scenario>-<timestamp>/checks.json
//
// A scenario passes when none of its checks has status FAILURE (WARNING is a
// SHOULD-level miss: reported, not failed). A scenario with no checks.json
// (crashed, or the suite timed out) fails. Failures listed in the expected-
// failures file are reported as XFAIL and do not fail the run.
//
// Counting unit: one scenario run (a scenario in one of the runs). The last
// line is "conformance: N passed, M failed", where M counts only unexpected
// failures; the exit status is 1 when M > 0, 2 on a usage or input error.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

function usage(msg) {
  console.error(`conformance-report: ${msg}`);
  console.error('usage: conformance-report.mjs --expected FILE RUN_DIR...');
  process.exit(2);
}

const args = process.argv.slice(2);
let expectedFile;
const runDirs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--expected') expectedFile = args[++i];
  else runDirs.push(args[i]);
}
if (runDirs.length === 0) usage('no run directories given');

// --- expected failures ------------------------------------------------------
// One entry per line: "<scenario>[@<run>]  # reason". The reason is required.
const expected = new Map(); // key "scenario" or "scenario@run" -> { reason, line, used }
if (expectedFile) {
  if (!existsSync(expectedFile)) usage(`expected-failures file not found: ${expectedFile}`);
  readFileSync(expectedFile, 'utf8')
    .split('\n')
    .forEach((raw, idx) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      const hash = line.indexOf('#');
      const entry = (hash < 0 ? line : line.slice(0, hash)).trim();
      const reason = hash < 0 ? '' : line.slice(hash + 1).trim();
      if (!/^[A-Za-z0-9_./-]+(@[A-Za-z0-9_.-]+)?$/.test(entry)) {
        usage(`${expectedFile}:${idx + 1}: expected "<scenario>[@<run>]  # reason", got: ${raw}`);
      }
      if (!reason) usage(`${expectedFile}:${idx + 1}: entry "${entry}" has no "# reason"`);
      expected.set(entry, { reason, line: idx + 1, used: false });
    });
}
function expectation(scenario, run) {
  const e = expected.get(`${scenario}@${run}`) ?? expected.get(scenario);
  if (e) e.used = true;
  return e;
}

// --- inputs -----------------------------------------------------------------
// Scenario names from `conformance list` output: "  - name [tags]" lines in
// the "Server scenarios" section, plus not-scored entries tagged [server].
function parseList(text) {
  const names = [];
  let inServer = false;
  for (const line of text.split('\n')) {
    if (/^Server scenarios/.test(line)) inServer = true;
    else if (/^\S/.test(line)) inServer = false;
    const m = /^\s+- (\S+)(?: \[([^\]]*)\])?\s*$/.exec(line);
    if (!m) continue;
    if (inServer || m[2] === 'server') names.push(m[1]);
  }
  return names;
}

const TS = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
function readResults(dir) {
  const out = new Map(); // scenario -> checks[]
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir).sort()) {
    if (!entry.startsWith('server-') || !TS.test(entry)) continue;
    const scenario = entry.slice('server-'.length).replace(TS, '');
    const file = join(dir, entry, 'checks.json');
    if (!existsSync(file)) continue;
    try {
      out.set(scenario, JSON.parse(readFileSync(file, 'utf8')));
    } catch (err) {
      out.set(scenario, [{ id: 'checks.json', status: 'FAILURE', errorMessage: `unreadable: ${err.message}` }]);
    }
  }
  return out;
}

const oneLine = (s, n = 240) => {
  const t = String(s ?? '').replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

// --- report -----------------------------------------------------------------
let passed = 0;
let failed = 0;
let xfailed = 0;
const stale = [];

for (const dir of runDirs) {
  const run = basename(dir);
  const listFile = join(dir, 'scenarios.txt');
  const exitFile = join(dir, 'exit');
  const results = readResults(join(dir, 'results'));
  const listed = existsSync(listFile) ? parseList(readFileSync(listFile, 'utf8')) : [];
  const exit = existsSync(exitFile) ? readFileSync(exitFile, 'utf8').trim() : '?';
  const timedOut = exit === '124' || exit === '137';
  const names = [...new Set([...listed, ...results.keys()])];

  console.log(`\n== ${run} (${names.length} scenarios, CLI exit ${exit}${timedOut ? ', TIMED OUT' : ''})`);
  if (names.length === 0) {
    console.log(`  FAIL  (no scenarios ran; see ${join(dir, 'cli.log')})`);
    failed++;
    continue;
  }
  for (const name of names) {
    const checks = results.get(name);
    const exp = expectation(name, run);
    let fails;
    let warns = [];
    let summary;
    if (!checks) {
      fails = [{ id: '(no results)', errorMessage: timedOut ? 'suite run timed out before this scenario finished' : 'scenario produced no checks.json (crashed?)' }];
      summary = 'no results';
    } else {
      fails = checks.filter((c) => c.status === 'FAILURE');
      warns = checks.filter((c) => c.status === 'WARNING');
      const ok = checks.filter((c) => c.status === 'SUCCESS').length;
      summary = `${ok} ok, ${fails.length} failed, ${warns.length} warnings`;
    }
    if (fails.length === 0) {
      if (exp) {
        stale.push(`${name}@${run}`);
        console.log(`  XPASS ${name} (${summary}) — listed as expected failure: ${exp.reason}`);
      } else {
        console.log(`  PASS  ${name} (${summary})`);
      }
      passed++;
      for (const w of warns) console.log(`        warning ${w.id}: ${oneLine(w.errorMessage)}`);
    } else if (exp) {
      xfailed++;
      console.log(`  XFAIL ${name} (${summary}) — ${exp.reason}`);
    } else {
      failed++;
      console.log(`  FAIL  ${name} (${summary})`);
      for (const c of fails) console.log(`        ✗ ${c.id}: ${oneLine(c.errorMessage)}`);
      for (const w of warns) console.log(`        warning ${w.id}: ${oneLine(w.errorMessage)}`);
    }
  }
}

console.log('');
for (const [key, e] of expected) {
  if (!e.used) console.log(`note: expected-failures line ${e.line} (${key}) matched no scenario that ran`);
}
if (stale.length > 0) {
  console.log(`note: now passing, remove from the expected-failures file: ${stale.join(', ')}`);
}
console.log(`expected failures: ${xfailed} (counted in neither number below)`);
console.log(`conformance: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
