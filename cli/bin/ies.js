#!/usr/bin/env node
// ies: registers tsx, then runs the TypeScript command line (no build step).
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../src/main.ts')
process.exitCode = await main(process.argv)
