// `.ies/generation.json`, the generation record every archive and every push carries at the
// repository root: what the repository was made from, enough to reproduce it. It holds the processor
// input exactly as sent (the transform's output: never a deploy key or a cloud credential) and no
// other configuration.
import { createRequire } from 'node:module'
import type { TreeFile } from '@ies/processor-lib'
import type { Format, GenerateOptions } from '../generation/selection.ts'
import type { ProcessorInput } from '../generation/transform.ts'

export const GENERATION_RECORD_PATH = '.ies/generation.json'

/** The version of the IES server that wrote the record (server/package.json). */
export const IES_VERSION: string = (createRequire(import.meta.url)('../../../package.json') as { version: string }).version

export interface GenerationRecord {
  schemaVersion: 1
  environmentId: string
  environmentName: string
  templatesCommit: string
  format: Format
  options: GenerateOptions
  input: ProcessorInput
  /** The ids of the templates' migrations the configuration has run (../generation/migrations.ts). */
  migrations?: string[]
  generatedAt: string
  iesVersion: string
}

export function generationRecord(
  fields: Omit<GenerationRecord, 'schemaVersion' | 'generatedAt' | 'iesVersion'>,
  now = new Date(),
): GenerationRecord {
  return {
    schemaVersion: 1,
    environmentId: fields.environmentId,
    environmentName: fields.environmentName,
    templatesCommit: fields.templatesCommit,
    format: fields.format,
    options: { ...fields.options },
    input: fields.input,
    ...(fields.migrations && { migrations: [...fields.migrations] }),
    generatedAt: now.toISOString(),
    iesVersion: IES_VERSION,
  }
}

export function generationRecordFile(record: GenerationRecord): TreeFile {
  return { path: GENERATION_RECORD_PATH, content: Buffer.from(`${JSON.stringify(record, null, 2)}\n`, 'utf8'), mode: 0o644 }
}

/** The record in a file's content; null when it is none (absent, not JSON, another schema version). */
export function parseGenerationRecord(content: Buffer | string | undefined | null): GenerationRecord | null {
  if (!content) return null
  try {
    const record = JSON.parse(content.toString()) as GenerationRecord
    return record && typeof record === 'object' && record.schemaVersion === 1 ? record : null
  } catch {
    return null
  }
}

/** The record among generated files (`GENERATION_RECORD_PATH`); null when they carry none. */
export function recordOf(files: readonly TreeFile[]): GenerationRecord | null {
  return parseGenerationRecord(files.find((f) => f.path === GENERATION_RECORD_PATH)?.content)
}

/** Two records of the same generation: alike but for when (and by which IES version) they were written. */
export function sameGeneration(a: GenerationRecord | null, b: GenerationRecord | null): boolean {
  return !!a && !!b && generationIdentity(a) === generationIdentity(b)
}

/** What a record says was generated, as canonical JSON: all of it but when and by which IES version. */
export function generationIdentity(record: GenerationRecord): string {
  const { generatedAt: _at, iesVersion: _version, ...rest } = record
  return canonical(rest)
}

/** JSON with object keys sorted, so that equal values give equal text. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  )
}

/**
 * The configuration fields that differ between two processor inputs, as dotted paths
 * (`services.eks.node_count`, `region`), sorted; a field added or removed counts as changed.
 */
export function changedFields(before: unknown, after: unknown, prefix = ''): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
    return keys.flatMap((key) => changedFields(before[key], after[key], prefix ? `${prefix}.${key}` : key))
  }
  return canonical(before) === canonical(after) ? [] : [prefix || '(all)']
}
