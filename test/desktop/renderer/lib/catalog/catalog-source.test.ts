// Client consumption rule 5: USE_RUNTIME_CATALOG, and the fallback to the static configuration.
import t from 'tap'
import { loadCatalog } from '../../../../../desktop/src/renderer/lib/catalog/source.ts'
import staticCatalog from '../../../../../desktop/src/catalog/static-catalog.json' with { type: 'json' }

const live = { ...structuredClone(staticCatalog), commit: 'live-commit' }

t.test('flag on and the catalog reachable: the live catalog is used', async (t) => {
  const loaded = await loadCatalog({ useRuntimeCatalog: true, fetchCatalog: async () => ({ document: live }), staticCatalog })
  t.equal(loaded.source, 'runtime')
  t.equal(loaded.catalog.commit, 'live-commit')
  t.equal(loaded.notice, undefined)
})

t.test('flag on and the catalog unreachable: static fallback, logged and shown, still usable', async (t) => {
  const logged: string[] = []
  const loaded = await loadCatalog({
    useRuntimeCatalog: true,
    fetchCatalog: async () => {
      throw new Error('connect ECONNREFUSED')
    },
    staticCatalog,
    log: (m) => logged.push(m),
  })
  t.equal(loaded.source, 'static')
  t.equal(loaded.catalog.commit, 'static')
  t.ok(loaded.catalog.services.length > 0, 'the wizard has services to show')
  t.match(loaded.notice, /could not be loaded: connect ECONNREFUSED\. The wizard uses the built-in catalog/)
  t.match(logged, [/falling back to the static configuration/])
})

t.test('flag on and the live catalog has another schemaVersion: rejected, static fallback', async (t) => {
  const loaded = await loadCatalog({
    useRuntimeCatalog: true,
    fetchCatalog: async () => ({ document: { ...live, schemaVersion: 2 } }),
    staticCatalog,
    log: () => {},
  })
  t.equal(loaded.source, 'static')
  t.match(loaded.notice, /schemaVersion 2/)
})

t.test('flag off: the static configuration, without calling the backend', async (t) => {
  let called = false
  const loaded = await loadCatalog({
    useRuntimeCatalog: false,
    fetchCatalog: async () => {
      called = true
      return { document: live }
    },
    staticCatalog,
  })
  t.equal(called, false)
  t.equal(loaded.source, 'static')
  t.equal(loaded.notice, undefined)
})

t.test('a stale catalog (Warning: 110) is marked', async (t) => {
  const loaded = await loadCatalog({ useRuntimeCatalog: true, fetchCatalog: async () => ({ document: live, stale: true }), staticCatalog })
  t.equal(loaded.stale, true)
})
