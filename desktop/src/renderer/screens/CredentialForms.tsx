// The forms of the cloud credentials screen (Credentials.tsx): a new credential with its provider's
// fields (secrets are write-only), a rename or rotation, and a check's result.
import { useEffect, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { ApiError } from '@ies/api'
import { CREDENTIAL_FIELDS, checkOutcome, credentialUpdateFromForm, credentialsFromForm } from '../lib/credentials/fields.ts'
import { CREDENTIAL_PROVIDERS, type CloudCredential, type CredentialProvider, type CredentialValidation } from '../lib/api/types.ts'
import { Badge, ErrorNotice, PROVIDER_LABELS, SelectField, Spinner, TextArea, TextField, formatDate } from '../components/ui.tsx'
export function NewCredential(p: { onCancel: () => void; onCreated: (c: CloudCredential) => void }) {
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

export function CheckResult({ result }: { result: CredentialValidation }) {
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
export function EditCredential(p: {
  credential: CloudCredential
  onCancel: () => void
  onSaved: (c: CloudCredential, rotated: boolean) => void
}) {
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
