/**
 * The test contracts' checked-in ABI and bytecode (tests/contracts/build/) are what the pinned
 * solc makes of their sources today: a source edited without recompiling fails here.
 */
import fs from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

// @ts-expect-error: a plain ES module script without type declarations
import { BUILD, compile } from '../contracts/compile.mjs';

describe('test contracts', () => {
  it('build/ equals a fresh compile of src/ with the pinned solc', () => {
    const fresh = compile() as Record<string, string>;
    const have = fs.readdirSync(BUILD as string).filter((f) => f.endsWith('.json')).sort();
    expect(have).toEqual(Object.keys(fresh).sort());
    for (const f of have) expect(fs.readFileSync(path.join(BUILD as string, f), 'utf8'), f).toBe(fresh[f]);
    expect(JSON.parse(fresh['Emitter.json']!).compiler).toMatch(/^solc 0\.8\.37\+/);
  }, 60_000);
});
