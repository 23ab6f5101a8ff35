// What every bench script does with its figures: the file named after `--json` on the command
// line, and writing them there.
import fs from 'node:fs';
import path from 'node:path';

/** The file after `--json` on the command line, if any. */
export const JSON_OUT = process.argv.includes('--json') ? process.argv[process.argv.indexOf('--json') + 1] : undefined;

/** Writes `doc` to the `--json` file as indented JSON and says so; nothing without `--json`. */
export function writeFigures(doc) {
  if (!JSON_OUT) return;
  fs.mkdirSync(path.dirname(path.resolve(JSON_OUT)), { recursive: true });
  fs.writeFileSync(JSON_OUT, JSON.stringify(doc, null, 2) + '\n');
  console.log(`figures written to ${JSON_OUT}`);
}
