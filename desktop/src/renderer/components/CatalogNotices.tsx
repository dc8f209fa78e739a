// What the wizard tells the user about the catalog it was built from: which one (live or built-in,
// and its templates commit), a fallback to the built-in catalog, a live catalog that may be out of
// date (`Warning: 110`), and the fields the client had to adjust.
import { shortCommit } from '../lib/catalog/prepared-catalog.ts'
import type { LoadedCatalog } from '../lib/catalog/source.ts'
import { Notice } from './ui.tsx'

/** One line for the page header: where the wizard's choices come from. */
export function CatalogSourceLine({ loaded }: { loaded: LoadedCatalog }) {
  const { commit } = loaded.catalog
  return (
    <span data-testid="catalog-source" data-commit={commit}>
      {loaded.source === 'runtime' ? 'Live service catalog' : 'Built-in service catalog'}
      {commit && (
        <>
          {' '}
          from templates <code title={commit}>{shortCommit(commit)}</code>
        </>
      )}
      {(loaded.stale || loaded.unchecked) && ' (may be out of date)'}
    </span>
  )
}

export function CatalogNotices({ loaded }: { loaded: LoadedCatalog }) {
  return (
    <>
      {loaded.notice && (
        <Notice kind="warn" title="Using the built-in catalog" testId="catalog-fallback">
          {loaded.notice}
        </Notice>
      )}
      {loaded.stale && (
        <Notice kind="warn" title="The catalog may be out of date" testId="catalog-stale">
          The server could not reach the template processor and served the catalog it had cached. Services or fields added to the templates
          since then are not offered yet; reopen the wizard later to check.
        </Notice>
      )}
      {loaded.unchecked && (
        <Notice kind="warn" title="Using the catalog kept in this browser" testId="catalog-unchecked">
          The server could not be asked whether it changed: {loaded.unchecked} The wizard works with this copy; reopen it later to check for
          changes.
        </Notice>
      )}
      {loaded.catalog.warnings.length > 0 && (
        <Notice kind="warn" title="Some catalog fields were adjusted" testId="catalog-adjusted">
          <ul>
            {loaded.catalog.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </Notice>
      )}
    </>
  )
}
