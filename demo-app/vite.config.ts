import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vite';

// The page is static: `vite build` writes demo-app/dist, which scripts/demo.mjs serves next to a
// same-origin proxy to lightprov-node (`/rpc`) and `/demo-config.json`. The SDK's .wasm is
// emitted as an asset (referenced with `new URL(…, import.meta.url)`), never inlined.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
  },
});
