import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  logLevel: 'warn',
  build: {
    outDir: path.join(here, '..', '..', 'target', 'browser-test'),
    emptyOutDir: true,
    target: 'es2022',
  },
});
