// The Electron main process and preload, bundled by Vite into dist-electron/: main as an ES module
// (`vite build -c vite.electron.config.ts`), the preload as CommonJS (`--mode preload`; a sandboxed
// preload cannot be an ES module). `electron` and Node's built-ins stay external. No Electron binary
// is needed to build.
import { builtinModules } from 'node:module'
import { defineConfig } from 'vite'

const external = ['electron', ...builtinModules, ...builtinModules.map((m) => `node:${m}`)]

export default defineConfig(({ mode }) => {
  const preload = mode === 'preload'
  return {
    build: {
      outDir: 'dist-electron',
      emptyOutDir: !preload,
      target: 'node22',
      minify: false,
      sourcemap: true,
      ssr: preload ? 'src/main/preload.ts' : 'src/main/main.ts',
      rollupOptions: {
        external,
        output: { format: preload ? 'cjs' : 'es', entryFileNames: preload ? 'preload.cjs' : 'main.js' },
      },
    },
  }
})
