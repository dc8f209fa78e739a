// Cloud credentials: list, create per provider with the right fields (secrets are write-only),
// validate with a visible result, set the default, delete (naming the environments that block it).
import { useEffect, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { ApiError } from '@ies/api'
import { CheckResult, EditCredential, NewCredential } from './CredentialForms.tsx'
import type { CloudCredential } from '../lib/api/types.ts'
import { Badge, ConfirmDialog, EmptyState, ErrorNotice, Notice, PageHead, PROVIDER_LABELS, Spinner, formatDate } from '../components/ui.tsx'

export function Credentials() {
  const { api, toast } = useApp()
  const { list, error, setList, checking, rowError, setRowError, validate, makeDefault } = useCredentialRows()
  const [adding, setAdding] = useState(false)
  const [editing, setEditing] = useState<CloudCredential | null>(null)
  const [deleting, setDeleting] = useState<CloudCredential | null>(null)
  const [blocked, setBlocked] = useState<{ name: string; environments: string[] } | null>(null)

  async function remove() {
    const c = deleting!
    try {
      await api.deleteCredential(c.id)
      toast(`Deleted ${c.name}`)
      setDeleting(null)
      setList(list!.filter((x) => x.id !== c.id))
    } catch (e) {
      setDeleting(null)
      if (e instanceof ApiError && e.code === 'CREDENTIAL_IN_USE') {
        const envs = (e.details as { environments?: string[] } | undefined)?.environments ?? []
        setBlocked({ name: c.name, environments: envs })
      } else setRowError({ id: c.id, error: e })
    }
  }

  return (
    <>
      <PageHead
        title="Cloud credentials"
        subtitle="Stored encrypted. Secret values are never shown again after you save them."
        actions={
          !adding && (
            <button type="button" className="btn primary" onClick={() => (setEditing(null), setAdding(true))}>
              Add credential
            </button>
          )
        }
      />
      {adding && (
        <NewCredential
          onCancel={() => setAdding(false)}
          onCreated={(c) => {
            setAdding(false)
            toast(`Added ${c.name}`)
            setList([...(list ?? []).map((x) => (c.isDefault && x.provider === c.provider ? { ...x, isDefault: false } : x)), c])
          }}
        />
      )}
      {editing && (
        <EditCredential
          key={editing.id}
          credential={editing}
          onCancel={() => setEditing(null)}
          onSaved={(c, rotated) => {
            setEditing(null)
            toast(rotated ? `Saved ${c.name} with its new secret` : `Renamed to ${c.name}`)
            // A new secret has not been checked: the server forgot the last check, and so does the list.
            setList(list!.map((x) => (x.id === c.id ? { ...x, ...c, ...(rotated && { lastValidation: undefined }) } : x)))
          }}
        />
      )}
      {blocked && <InUseNotice blocked={blocked} onDismiss={() => setBlocked(null)} />}
      <div className="card">
        <ErrorNotice error={error} what="Loading cloud credentials" />
        {!list && !error && <Spinner label="Loading cloud credentials" />}
        {list && list.length === 0 && (
          <EmptyState
            title="No cloud credentials yet"
            action={
              !adding && (
                <button type="button" className="btn primary" onClick={() => setAdding(true)}>
                  Add your first credential
                </button>
              )
            }
          >
            A credential lets IES check your account, create a state bucket, and is referenced by environments.
          </EmptyState>
        )}
        {list && list.length > 0 && (
          <CredentialTable
            list={list}
            checking={checking}
            rowError={rowError}
            onValidate={validate}
            onEdit={(c) => (setAdding(false), setEditing(c))}
            onMakeDefault={makeDefault}
            onDelete={(c) => (setBlocked(null), setDeleting(c))}
          />
        )}
      </div>
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          confirmLabel="Delete credential"
          danger
          onConfirm={remove}
          onCancel={() => setDeleting(null)}
        >
          <p>Environments that use this credential keep it until you assign another one; deleting is refused while any does.</p>
        </ConfirmDialog>
      )}
    </>
  )
}

/** The session's list of credentials, with a check and "set default" applied to it locally. */
function useCredentialRows() {
  const { api, toast, credentials, setCredentials } = useApp()
  const [list, setListState] = useState<CloudCredential[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  // Credentials being checked now; the last check's result is kept by the server with the credential.
  const [checking, setChecking] = useState<Record<string, boolean>>({})
  const [rowError, setRowError] = useState<RowError>(null)

  // One request per session for the list; every change is applied locally (the server's answer to
  // the change is the truth), so no action costs a second request for the list.
  const setList = (next: CloudCredential[]) => (setCredentials(next), setListState(next))
  useEffect(() => {
    credentials().then((l) => (setListState(l), setError(null)), setError)
  }, [credentials])

  async function validate(c: CloudCredential) {
    setChecking((r) => ({ ...r, [c.id]: true }))
    try {
      const lastValidation = await api.validateCredential(c.id)
      setList((list ?? []).map((x) => (x.id === c.id ? { ...x, lastValidation } : x)))
    } catch (e) {
      setRowError({ id: c.id, error: e })
    } finally {
      setChecking((r) => ({ ...r, [c.id]: false }))
    }
  }

  async function makeDefault(c: CloudCredential) {
    try {
      await api.setDefaultCredential(c.id)
      toast(`${c.name} is now the default ${PROVIDER_LABELS[c.provider]} credential`)
      setList(list!.map((x) => (x.provider === c.provider ? { ...x, isDefault: x.id === c.id } : x)))
    } catch (e) {
      setRowError({ id: c.id, error: e })
    }
  }
  return { list, error, setList, checking, rowError, setRowError, validate, makeDefault }
}

type RowError = { id: string; error: unknown } | null

/** A credential environments still use cannot be deleted: which ones. */
function InUseNotice({ blocked, onDismiss }: { blocked: { name: string; environments: string[] }; onDismiss: () => void }) {
  return (
    <Notice kind="error" title={`${blocked.name} is in use`} testId="credential-in-use">
      Assign another credential to these environments first:
      <ul>
        {blocked.environments.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
      <button type="button" className="btn link" onClick={onDismiss}>
        Dismiss
      </button>
    </Notice>
  )
}

/** One row per credential: its provider, when it was added, its last check, and the actions. */
function CredentialTable(p: {
  list: CloudCredential[]
  checking: Record<string, boolean>
  rowError: RowError
  onValidate: (c: CloudCredential) => void
  onEdit: (c: CloudCredential) => void
  onMakeDefault: (c: CloudCredential) => void
  onDelete: (c: CloudCredential) => void
}) {
  const { list, checking, rowError } = p
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Cloud credentials">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Provider</th>
            <th scope="col">Added</th>
            <th scope="col">Check</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.map((c) => {
            return (
              <tr key={c.id} data-credential={c.name}>
                <td>
                  <strong>{c.name}</strong> {c.isDefault && <Badge kind="default">default</Badge>}
                </td>
                <td>
                  <Badge kind={c.provider}>{PROVIDER_LABELS[c.provider]}</Badge>
                </td>
                <td>{formatDate(c.createdAt)}</td>
                <td aria-live="polite">
                  {checking[c.id] && <Spinner label="Checking" />}
                  {!checking[c.id] && c.lastValidation && <CheckResult result={c.lastValidation} />}
                  {rowError?.id === c.id && <ErrorNotice error={rowError.error} what="The action" />}
                </td>
                <td>
                  <div className="row">
                    <button type="button" className="btn small" onClick={() => p.onValidate(c)}>
                      Validate
                    </button>
                    <button type="button" className="btn small" onClick={() => p.onEdit(c)} aria-label={`Edit ${c.name}`}>
                      Edit
                    </button>
                    {!c.isDefault && (
                      <button type="button" className="btn small" onClick={() => p.onMakeDefault(c)}>
                        Set default
                      </button>
                    )}
                    <button type="button" className="btn small danger" onClick={() => p.onDelete(c)} aria-label={`Delete ${c.name}`}>
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
