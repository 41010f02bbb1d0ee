import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'

// electron-store (and its conf dependency) are ESM-only; bundling them into the
// CJS main bundle avoids relying on require(esm) inside Electron.
export default defineConfig({
  main: {
    build: {
      externalizeDeps: { exclude: ['electron-store', 'conf'] },
      rollupOptions: { input: { index: resolve(__dirname, 'src/main/index.ts') } }
    }
  },
  preload: {
    build: { rollupOptions: { input: { index: resolve(__dirname, 'src/preload/index.ts') } } }
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    worker: { format: 'es' },
    build: {
      minify: true,
      // Monaco alone is ~4 MB minified; the app is loaded from disk or localhost.
      chunkSizeWarningLimit: 6000,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } }
    }
  }
})
