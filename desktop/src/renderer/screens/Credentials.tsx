// Cloud credentials: list, create per provider with the right fields (secrets are write-only),
// validate with a visible result, set the default, delete (naming the environments that block it).
import { useEffect, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { ApiError } from '@ies/api'
import { CREDENTIAL_FIELDS, checkOutcome, credentialUpdateFromForm, credentialsFromForm } from '../lib/credentials/fields.ts'
import { CREDENTIAL_PROVIDERS, type CloudCredential, type CredentialProvider, type CredentialValidation } from '../lib/api/types.ts'
import {
  Badge,
  ConfirmDialog,
  EmptyState,
  ErrorNotice,
  Notice,
  PageHead,
  PROVIDER_LABELS,
  SelectField,
  Spinner,
  TextArea,
  TextField,
  formatDate,
} from '../components/ui.tsx'
import { ListTable } from '../components/ListTable.tsx'

export function Credentials() {
  const { api, toast, credentials, setCredentials } = useApp()
  const [list, setListState] = useState<CloudCredential[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [adding, setAdding] = useState(false)
  // Credentials being checked now; the last check's result is kept by the server with the credential.
  const [checking, setChecking] = useState<Record<string, boolean>>({})
  const [editing, setEditing] = useState<CloudCredential | null>(null)
  const [rowError, setRowError] = useState<{ id: string; error: unknown } | null>(null)
  const [deleting, setDeleting] = useState<CloudCredential | null>(null)
  const [blocked, setBlocked] = useState<{ name: string; environments: string[] } | null>(null)

  // One request per session for the list; every change below is applied locally (the server's
  // answer to the change is the truth), so no action costs a second request for the list.
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
      {blocked && (
        <Notice kind="error" title={`${blocked.name} is in use`} testId="credential-in-use">
          Assign another credential to these environments first:
          <ul>
            {blocked.environments.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
          <button type="button" className="btn link" onClick={() => setBlocked(null)}>
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
          }
          columns={['Name', 'Provider', 'Added', 'Check']}
          actions="Actions"
          row={(c) => (
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
                  <button type="button" className="btn small" onClick={() => validate(c)}>
                    Validate
                  </button>
                  <button
                    type="button"
                    className="btn small"
                    onClick={() => (setAdding(false), setEditing(c))}
                    aria-label={`Edit ${c.name}`}
                  >
                    Edit
                  </button>
                  {!c.isDefault && (
                    <button type="button" className="btn small" onClick={() => makeDefault(c)}>
                      Set default
                    </button>
                  )}
                  <button
                    type="button"
                    className="btn small danger"
                    onClick={() => (setBlocked(null), setDeleting(c))}
                    aria-label={`Delete ${c.name}`}
                  >
                    Delete
                  </button>
                </div>
              </td>
            </tr>
          )}
        />
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

function NewCredential(p: { onCancel: () => void; onCreated: (c: CloudCredential) => void }) {
  const { api, preferences } = useApp()
  const [name, setName] = useState('')
  const initial = (CREDENTIAL_PROVIDERS as readonly string[]).includes(preferences.defaultProvider)
    ? (preferences.defaultProvider as CredentialProvider)
    : 'aws'
  const [provider, setProvider] = useState<CredentialProvider>(initial)
  const [form, setForm] = useState<Record<string, string>>({})
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  async function save(e: React.FormEvent) {
    e.preventDefault()
    const { credentials, errors: local } = credentialsFromForm(provider, form)
    if (!name.trim()) local.name = 'is required'
    setErrors(local)
    if (Object.keys(local).length) return
    setBusy(true)
    setError(null)
    try {
      p.onCreated(await api.createCredential({ name: name.trim(), provider, credentials }))
    } catch (err) {
      setError(err)
      if (err instanceof ApiError) setErrors(err.fieldErrors)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form className="card" onSubmit={save} aria-labelledby="new-credential-title" noValidate>
      <h2 id="new-credential-title">New cloud credential</h2>
      <div className="grid-2">
        <TextField
          label="Name"
          required
          value={name}
          onChange={setName}
          error={errors.name}
          help="How you will recognise it, e.g. production-account."
        />
        <SelectField
          label="Provider"
          required
          value={provider}
          options={CREDENTIAL_PROVIDERS.map((v) => ({ value: v, label: PROVIDER_LABELS[v] }))}
          onChange={(v) => (setProvider(v), setForm({}), setErrors({}))}
          error={errors.provider}
        />
        {CREDENTIAL_FIELDS[provider].map((f) =>
          f.kind === 'json' ? (
            <div className="span-all" key={`${provider}.${f.key}`}>
              <TextArea
                label={f.label}
                required={f.required}
                value={form[f.key] ?? ''}
                onChange={(v) => setForm({ ...form, [f.key]: v })}
                help={f.help}
                error={errors[`credentials.${f.key}`]}
              />
            </div>
          ) : (
            <TextField
              key={`${provider}.${f.key}`}
              label={f.label}
              required={f.required}
              type={f.secret ? 'password' : 'text'}
              autoComplete={f.secret ? 'new-password' : 'off'}
              value={form[f.key] ?? ''}
              onChange={(v) => setForm({ ...form, [f.key]: v })}
              help={f.secret ? `${f.help ? `${f.help} ` : ''}Write-only: stored encrypted, never shown again.` : f.help}
              error={errors[`credentials.${f.key}`]}
            />
          ),
        )}
      </div>
      <ErrorNotice error={error} what="Saving the credential" />
      <div className="row gap-top">
        <button type="submit" className="btn primary" disabled={busy}>
          {busy && <Spinner />} Save credential
        </button>
        <button type="button" className="btn" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}

function CheckResult({ result }: { result: CredentialValidation }) {
  const outcome = checkOutcome(result)
  const badge = { valid: 'valid', invalid: 'invalid', unreachable: 'could not check' }[outcome.state]
  return (
    <span data-testid="validation-result" data-state={outcome.state}>
      <Badge kind={outcome.state === 'unreachable' ? 'pending' : outcome.state}>{badge}</Badge>{' '}
      <span className="small">{outcome.text.replace(/^(Valid|Invalid): ?/, '')}</span>{' '}
      <span className="muted small">checked {formatDate(result.checkedAt)}</span>
      {outcome.detail && (
        <details className="error-detail">
          <summary>What the server saw</summary>
          <code>{outcome.detail}</code>
        </details>
      )}
    </span>
  )
}

/** Rename a credential, or rotate it (replace its whole secret); the stored values are shown masked. */
function EditCredential(p: { credential: CloudCredential; onCancel: () => void; onSaved: (c: CloudCredential, rotated: boolean) => void }) {
  const { api } = useApp()
  const c = p.credential
  const [name, setName] = useState(c.name)
  const [form, setForm] = useState<Record<string, string>>({})
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [metadata, setMetadata] = useState<Record<string, unknown> | null>(null)
  useEffect(() => {
    api.getCredential(c.id).then(
      (full) => setMetadata(full.metadata ?? {}),
      () => setMetadata({}),
    )
  }, [api, c.id])

  async function save(e: React.FormEvent) {
    e.preventDefault()
    const { body, errors: local, rotates } = credentialUpdateFromForm(c.provider, name, form)
    setErrors(local)
    if (Object.keys(local).length) return
    setBusy(true)
    setError(null)
    try {
      const saved = await api.updateCredential(c.id, body)
      p.onSaved({ ...c, ...saved }, rotates)
    } catch (err) {
      setError(err)
      if (err instanceof ApiError) setErrors(err.fieldErrors)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form className="card" onSubmit={save} aria-labelledby="edit-credential-title" noValidate data-testid="edit-credential">
      <h2 id="edit-credential-title">
        {c.name} <Badge kind={c.provider}>{PROVIDER_LABELS[c.provider]}</Badge>
      </h2>
      <dl className="props" aria-label="Stored values">
        {metadata === null ? (
          <dd>
            <Spinner label="Loading the stored values" />
          </dd>
        ) : (
          Object.entries(metadata).map(([k, v]) => (
            <div key={k} className="contents">
              <dt>{k}</dt>
              <dd className="mono">{String(v)}</dd>
            </div>
          ))
        )}
        <dt>Added</dt>
        <dd>{formatDate(c.createdAt)}</dd>
      </dl>
      <div className="grid-2 gap-top">
        <TextField label="Name" required value={name} onChange={setName} error={errors.name} />
      </div>
      <p className="muted gap-top">
        To rotate the secret, fill in the new values below: they replace the stored ones as a whole. Leave them all empty to keep the stored
        secret.
      </p>
      <div className="grid-2">
        {CREDENTIAL_FIELDS[c.provider].map((f) =>
          f.kind === 'json' ? (
            <div className="span-all" key={f.key}>
              <TextArea
                label={`New ${f.label.toLowerCase()}`}
                value={form[f.key] ?? ''}
                onChange={(v) => setForm({ ...form, [f.key]: v })}
                help={f.help}
                error={errors[`credentials.${f.key}`]}
              />
            </div>
          ) : (
            <TextField
              key={f.key}
              label={`New ${f.label.charAt(0).toLowerCase()}${f.label.slice(1)}`}
              type={f.secret ? 'password' : 'text'}
              autoComplete={f.secret ? 'new-password' : 'off'}
              value={form[f.key] ?? ''}
              onChange={(v) => setForm({ ...form, [f.key]: v })}
              help={f.secret ? 'Write-only: stored encrypted, never shown again.' : f.help}
              error={errors[`credentials.${f.key}`]}
            />
          ),
        )}
      </div>
      <ErrorNotice error={error} what="Saving the credential" />
      <div className="row gap-top">
        <button type="submit" className="btn primary" disabled={busy}>
          {busy && <Spinner />} Save
        </button>
        <button type="button" className="btn" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}
