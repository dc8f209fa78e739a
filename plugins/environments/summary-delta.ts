// The recent changes of a large summary (summaries.ts), stored beside it as its delta document
// (`<key>:delta`), so that a write rewrites a few kilobytes instead of the whole summary. A change
// per environment id, last one wins: its entry (the summary's line format) or a tombstone (the id
// alone on its line: the environment was removed). A list applies the delta to the summary's
// entries; a write that takes the delta past its limit folds it into the summary.
import { decodeEntries, encodeEntries, type SummaryEntry } from './summary-entries.ts'

/** By environment id: its newest entry, or null when it was removed. */
export type Changes = Map<string, SummaryEntry | null>

/** A change to make: the environment's entry, or null to take it out. */
export interface Edit {
  id: string
  entry: SummaryEntry | null
}

export function encodeChanges(changes: Changes): string {
  return [...changes].map(([id, entry]) => (entry ? encodeEntries([entry]) : id)).join('\n')
}

export function decodeChanges(text: string): Changes {
  const changes: Changes = new Map()
  if (!text) return changes
  for (const line of text.split('\n')) {
    if (line.includes('\t')) {
      const [entry] = decodeEntries(line)
      changes.set(entry.id, entry)
    } else changes.set(line, null)
  }
  return changes
}

/**
 * The changes with the edit recorded, or null when it changes nothing the delta knows of: a
 * removal already recorded, or an entry older than the one recorded (versions only move forward).
 * A removal of an id the delta does not hold is recorded: the summary may hold it.
 */
export function recordEdit(changes: Changes, edit: Edit): Changes | null {
  const current = changes.get(edit.id)
  if (edit.entry === null ? current === null : current && current.version > edit.entry.version) return null
  return new Map(changes).set(edit.id, edit.entry)
}

/** The entries with the edit made, or null when it changes nothing (as `recordEdit`, on the whole list). */
export function editEntries(entries: SummaryEntry[], edit: Edit): SummaryEntry[] | null {
  const at = entries.findIndex((e) => e.id === edit.id)
  if (edit.entry === null) return at < 0 ? null : entries.filter((e) => e.id !== edit.id)
  if (at < 0) return [...entries, edit.entry]
  if (entries[at].version > edit.entry.version) return null
  const next = [...entries]
  next[at] = edit.entry
  return next
}

/**
 * The summary's entries with the changes applied: a removed entry goes, a changed one is replaced
 * unless the summary's is of a newer version, a new one is added. No changes: the entries themselves.
 */
export function applyChanges(entries: SummaryEntry[], changes: Changes): SummaryEntry[] {
  if (changes.size === 0) return entries
  const merged: SummaryEntry[] = []
  const seen = new Set<string>()
  for (const e of entries) {
    const change = changes.get(e.id)
    if (change === undefined) {
      merged.push(e)
      continue
    }
    seen.add(e.id)
    if (change) merged.push(change.version >= e.version ? change : e)
  }
  for (const [id, change] of changes) if (change && !seen.has(id)) merged.push(change)
  return merged
}
