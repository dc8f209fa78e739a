// How an environment record is stored: `services` and `helmCharts` (the free-form settings: with every
// service configured, several hundred values) as one JSON text each. The embedded store (FerretDB)
// decodes a document value by value on every read, so a record with every service set reads in well
// under half the time as text (docs/internals/data-and-scale.md). No query
// filters on a setting, so nothing is lost by storing them whole. Records stored before this (nested
// documents) are read as they are and take the text form on their next write.
import type { EnvironmentRecord } from './record.ts'

type Settings = Pick<EnvironmentRecord, 'services' | 'helmCharts'>

/** An environment record as the `environments` collection holds it. */
export type StoredEnvironment = Omit<EnvironmentRecord, keyof Settings> & { [K in keyof Settings]: string | Settings[K] }

export function toStored(record: EnvironmentRecord): StoredEnvironment {
  return { ...record, services: JSON.stringify(record.services), helmCharts: JSON.stringify(record.helmCharts) }
}

const parsed = <T>(value: string | T): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value)

export function fromStored(stored: StoredEnvironment): EnvironmentRecord {
  return { ...stored, services: parsed(stored.services ?? {}), helmCharts: parsed(stored.helmCharts ?? {}) }
}
