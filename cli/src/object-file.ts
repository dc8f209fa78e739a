// Reading a YAML or JSON file given on the command line.
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { UsageError } from './settings.ts'

/** A YAML or JSON file as an object (YAML is a superset of JSON). */
export function readObjectFile(file: string): Record<string, unknown> {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new UsageError(`${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`)
  }
  let value: unknown
  try {
    value = parse(text)
  } catch (err) {
    throw new UsageError(`${file}: not YAML or JSON (${(err as Error).message.split('\n')[0]})`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${file}: expected a mapping`)
  return value as Record<string, unknown>
}
