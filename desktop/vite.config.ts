// The renderer: one build for the web UI (served by the server at /) and the Electron window.
// Relative asset URLs (base './') work from file:// in Electron and, with the <base href="/"> the
// server adds, from any path on the web. JSX is compiled by Vite's own transformer (tsconfig: react-jsx).
// Two pages: the app (index.html) and the environment diagram's renderer frame (diagram.html).
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

const page = (name: string) => fileURLToPath(new URL(`src/renderer/${name}`, import.meta.url))

export default defineConfig({
  root: 'src/renderer',
  base: './',
  publicDir: 'public',
  build: {
    outDir: '../../dist',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    rollupOptions: { input: { main: page('index.html'), diagram: page('diagram.html') } },
  },
})
