// Cloud credentials: list, create per provider with the right fields (secrets are write-only),
// validate with a visible result, set the default, delete (naming the environments that block it).
// The forms are in credentials/CredentialForms.tsx, a row in credentials/CredentialRow.tsx, the
// list and its actions in credentials/use-credential-list.ts.
import { useState } from 'react'
import type { CloudCredential } from '../lib/api/types.ts'
import { ConfirmDialog, EmptyState, ErrorNotice, Notice, PageHead } from '../components/ui.tsx'
import { ListTable } from '../components/ListTable.tsx'
import { EditCredential, NewCredential } from './credentials/CredentialForms.tsx'
import { CredentialRow } from './credentials/CredentialRow.tsx'
import { useCredentialList } from './credentials/use-credential-list.ts'

export function Credentials() {
  const credentials = useCredentialList()
  const { list, error, blocked } = credentials
  const [adding, setAdding] = useState(false)
  const [editing, setEditing] = useState<CloudCredential | null>(null)
  const [deleting, setDeleting] = useState<CloudCredential | null>(null)
  const actions = {
    validate: credentials.validate,
    makeDefault: credentials.makeDefault,
    edit: (c: CloudCredential) => (setAdding(false), setEditing(c)),
    remove: (c: CloudCredential) => (credentials.dismissBlocked(), setDeleting(c)),
  }
  const addFirst = (
    <button type="button" className="btn primary" onClick={() => setAdding(true)}>
      Add your first credential
    </button>
  )

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
      {adding && <NewCredential onCancel={() => setAdding(false)} onCreated={(c) => (setAdding(false), credentials.created(c))} />}
      {editing && (
        <EditCredential
          key={editing.id}
          credential={editing}
          onCancel={() => setEditing(null)}
          onSaved={(c, rotated) => (setEditing(null), credentials.saved(c, rotated))}
        />
      )}
      {blocked && (
        <Notice kind="error" title={`${blocked.name} is in use`} testId="credential-in-use">
          Assign another credential to these environments first:
          <ul>
            {blocked.environments.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
          <button type="button" className="btn link" onClick={credentials.dismissBlocked}>
            Dismiss
          </button>
        </Notice>
      )}
      <div className="card">
        <ErrorNotice error={error} what="Loading cloud credentials" />
        <ListTable
          label="Cloud credentials"
          loading="Loading cloud credentials"
          items={list}
          error={error}
          empty={
            <EmptyState title="No cloud credentials yet" action={!adding && addFirst}>
              A credential lets IES check your account, create a state bucket, and is referenced by environments.
            </EmptyState>
          }
          columns={['Name', 'Provider', 'Added', 'Check']}
          actions="Actions"
          row={(c) => (
            <CredentialRow
              key={c.id}
              credential={c}
              checking={!!credentials.checking[c.id]}
              error={credentials.rowError?.id === c.id ? credentials.rowError.error : null}
              actions={actions}
            />
          )}
        />
      </div>
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          confirmLabel="Delete credential"
          danger
          onConfirm={() => credentials.remove(deleting).finally(() => setDeleting(null))}
          onCancel={() => setDeleting(null)}
        >
          <p>Environments that use this credential keep it until you assign another one; deleting is refused while any does.</p>
        </ConfirmDialog>
      )}
    </>
  )
}
