#!/usr/bin/env node
// ies-processor: registers tsx, then runs the TypeScript CLI (no build step).
import { register } from 'tsx/esm/api'

register()
process.env.IES_PROCESSOR_CLI = '1'
await import('../src/cli.ts')
