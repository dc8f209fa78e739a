// Text retrieval over the live catalog (MiniSearch, BM25 with prefix and fuzzy matching): the built-in
// assistant finds the services, fields and dropdown options a request names by their catalog text
// (keys, display names, synonyms the templates declare, descriptions, option labels), not by a keyword
// table of its own. A plugin
// author's new service is found by its own words as soon as the catalog carries it.
import MiniSearch, { type SearchResult } from 'minisearch'
import type { Catalog } from './catalog-source.ts'

export type EntryKind = 'service' | 'field' | 'option'

interface Entry {
  id: string
  kind: EntryKind
  /** The service key; empty for a global field. */
  service: string
  /** `services.<key>.<field>` (or the global key) for fields and options. */
  path?: string
  /** The option's value. */
  value?: string | number | boolean
  /** Key, display name, declared synonyms, option label and value: what names the entry. */
  title: string
  /** Description (and category): what the entry is about. */
  text: string
}

export interface Hit {
  kind: EntryKind
  service: string
  path?: string
  value?: string | number | boolean
  score: number
  /** The request's words that matched (after normalization). */
  queryTerms: string[]
  /** True when a request word matched the entry's title (key, display name, option label). */
  named: boolean
  /** True when a request word is one of the entry's words as written (not only a prefix or a near spelling). */
  exact: boolean
}

/** Words that carry no meaning for the catalog ("I need a ... please"). */
const STOP = new Set(
  (
    'a an the i we me my our you your it its this that these those is are be been am was to of in on for at by from as into ' +
    'please need needs want wants would like could should can will shall do does did have has had get give make use using set ' +
    'some any all one also just only so then there here what which who how why when where ' +
    'ready production prod secure safe hardened setup'
  ).split(' '),
)

/** Lower case, and a plural's final "s" dropped, so "nodes" meets "node" and "backups" meets "backup". */
export function normalizeTerm(term: string): string | null {
  const t = term.toLowerCase()
  if (t.length < 2 || STOP.has(t)) return null
  return t.length > 3 && t.endsWith('s') && !t.endsWith('ss') ? t.slice(0, -1) : t
}

/** "nodeMinSize" -> "node Min Size": keys are searchable by their words. */
const splitKey = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1 $2')

function entriesOf(catalog: Catalog): Entry[] {
  const entries: Entry[] = []
  for (const [key, f] of Object.entries(catalog.global.fields)) {
    if (f.available === false) continue
    entries.push({
      id: `f:${key}`,
      kind: 'field',
      service: '',
      path: key,
      title: `${key} ${splitKey(key)} ${f.displayName}`,
      text: f.description ?? '',
    })
  }
  for (const [service, s] of Object.entries(catalog.services)) {
    if (s.available === false) continue
    entries.push({
      id: `s:${service}`,
      kind: 'service',
      service,
      title: [service, s.displayName, ...(s.synonyms ?? [])].join(' '),
      text: [s.description, s.category].filter(Boolean).join('. '),
    })
    for (const [key, f] of Object.entries(s.fields)) {
      if (f.available === false || key === 'enabled') continue
      const path = `services.${service}.${key}`
      entries.push({
        id: `f:${path}`,
        kind: 'field',
        service,
        path,
        title: [key, splitKey(key), f.displayName, ...(f.synonyms ?? [])].join(' '),
        text: f.description ?? '',
      })
      for (const o of f.type === 'dropdown' ? (f.options ?? []) : []) {
        entries.push({
          id: `o:${path}=${String(o.value)}`,
          kind: 'option',
          service,
          path,
          value: o.value,
          title: `${o.label} ${o.value}`,
          text: '',
        })
      }
    }
  }
  return entries
}

const indexes = new WeakMap<Catalog, MiniSearch<Entry>>()

/** Builds the catalog's index ahead of its first search (the assistant's route does, in a turn of the event loop of its own). */
export const indexCatalog = (catalog: Catalog): void => void indexOf(catalog)

/** The catalog's index, built once per catalog document (the catalog cache hands out the same object). */
function indexOf(catalog: Catalog): MiniSearch<Entry> {
  let index = indexes.get(catalog)
  if (!index) {
    index = new MiniSearch<Entry>({
      fields: ['title', 'text'],
      storeFields: ['kind', 'service', 'path', 'value'],
      processTerm: normalizeTerm,
      // Keep option values whole ("t3.large", "x86_64") besides their parts ("x86").
      tokenize: (text) => text.split(/[\s,;:()"'!?]+/).flatMap((w) => (/[._]/.test(w) ? [w.replace(/\.$/, ''), ...w.split(/[._]/)] : [w])),
    })
    index.addAll(entriesOf(catalog))
    indexes.set(catalog, index)
  }
  return index
}

export interface SearchScope {
  kinds?: EntryKind[]
  /** Only entries of these services. */
  services?: string[]
  /** Match the title only (names), not descriptions. */
  titleOnly?: boolean
}

/** The catalog entries a piece of text names, best first. */
export function searchCatalog(catalog: Catalog, text: string, scope: SearchScope = {}): Hit[] {
  const index = indexOf(catalog)
  const results: SearchResult[] = index.search(text, {
    fields: scope.titleOnly ? ['title'] : ['title', 'text'],
    boost: { title: 3 },
    prefix: (term) => term.length >= 4,
    fuzzy: (term) => (term.length >= 6 ? 0.15 : false),
    filter: (r) => (!scope.kinds || scope.kinds.includes(r.kind)) && (!scope.services || scope.services.includes(r.service)),
  })
  return results.map((r) => ({
    kind: r.kind as EntryKind,
    service: r.service as string,
    path: r.path as string | undefined,
    value: r.value as Hit['value'],
    score: r.score,
    queryTerms: r.queryTerms,
    named: Object.values(r.match).some((fields) => fields.includes('title')),
    exact: r.queryTerms.some((t) => r.terms.includes(t)),
  }))
}
