// npm run build:cli: the command line as one file, cli/dist/ies.cjs, that runs with Node alone (no
// monorepo, no node_modules, no TypeScript loader). esbuild bundles the sources and their
// dependencies; the API types the client shares with the server are types only and leave nothing.
import { chmodSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, buildSync, type BuildOptions } from 'esbuild'

const CLI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const BUNDLE_FILE = path.join(CLI_DIR, 'dist', 'ies.cjs')

/** esbuild's options for the one file written to `outfile`. */
function bundleOptions(outfile: string): BuildOptions {
  return {
    entryPoints: [path.join(CLI_DIR, 'src', 'cli.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    // CommonJS (.cjs: whatever package.json is nearby): dependencies written as CommonJS keep their require().
    format: 'cjs',
    target: 'node20',
    minify: false,
    legalComments: 'eof',
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'warning',
  }
}

export async function buildBundle(outfile = BUNDLE_FILE): Promise<string> {
  await build(bundleOptions(outfile))
  chmodSync(outfile, 0o755)
  return outfile
}

/** The same build, synchronously (the CLI tests build it before their first run: test/cli/helpers.ts). */
export function buildBundleSync(outfile = BUNDLE_FILE): string {
  buildSync(bundleOptions(outfile))
  chmodSync(outfile, 0o755)
  return outfile
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = await buildBundle()
  console.log(`Wrote ${path.relative(process.cwd(), file)}`)
}
