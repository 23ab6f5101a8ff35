// The EVM's module is a room of its own: no page loads it but one that calls a contract. Its
// own file: vitest isolates files, so nothing is loaded when it starts.
import { IN_ALL, init, loadFamily, modulesFor } from '@lightprov/sdk';
import { describe, expect, it } from 'vitest';

import { recordingLocate } from '../lib/util.js';

describe('the EVM module', () => {
  it('is loaded by neither an MPT-only page nor init(), only when named (a client does on its first call)', async () => {
    const { asked, locate } = recordingLocate();
    await init({ families: ['mpt'], locate });
    expect(asked).toEqual(['mpt']);
    await init();
    expect(IN_ALL).not.toContain('evm');
    expect(asked.slice(1).sort()).toEqual(modulesFor(IN_ALL, new Set(['mpt'])).sort());
    expect(asked).not.toContain('evm');
    await loadFamily('evm');
    expect(asked.at(-1)).toBe('evm');
  });
});
