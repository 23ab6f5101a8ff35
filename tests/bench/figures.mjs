// What every bench script does with its figures: the fields that say where they come from, the
// file named after `--json` on the command line, and writing them there.
import fs from 'node:fs';
import path from 'node:path';

/** The file after `--json` on the command line, if any. */
export const JSON_OUT = process.argv.includes('--json') ? process.argv[process.argv.indexOf('--json') + 1] : undefined;

/**
 * The fields a figures document starts with: the run (`LIGHTPROV_BENCH_RUN`), the run that made
 * the proofs it times (`proofsRun`, for a script that times another run's proofs), the script
 * that wrote it and Node's version.
 */
export function provenance(generator, proofsRun) {
  return {
    run: process.env.LIGHTPROV_BENCH_RUN ?? '',
    ...(proofsRun === undefined ? {} : { proofsRun }),
    generator,
    node: process.version,
  };
}

/** Writes `doc` to the `--json` file as indented JSON and says so; nothing without `--json`. */
export function writeFigures(doc) {
  if (!JSON_OUT) return;
  fs.mkdirSync(path.dirname(path.resolve(JSON_OUT)), { recursive: true });
  fs.writeFileSync(JSON_OUT, JSON.stringify(doc, null, 2) + '\n');
  console.log(`figures written to ${JSON_OUT}`);
}
