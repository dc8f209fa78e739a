// The renderer: one build for the web UI (served by the server at /) and the Electron window.
// Relative asset URLs (base './') work from file:// in Electron and, with the <base href="/"> the
// server adds, from any path on the web. JSX is compiled by Vite's own transformer (tsconfig: react-jsx).
import { defineConfig } from 'vite'

export default defineConfig({
  root: 'src/renderer',
  base: './',
  publicDir: 'public',
  build: {
    outDir: '../../dist',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
  },
})
