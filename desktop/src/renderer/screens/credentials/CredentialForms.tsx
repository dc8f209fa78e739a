// The credential forms: a new credential (name, provider and the provider's fields), and the edit of
// a stored one (rename, or rotate: new values replace the whole secret; the stored values are shown
// masked). Secret fields are write-only; the values live in component state only.
import { useEffect, useState } from 'react'
import { ApiError } from '@ies/api'
import { useApp } from '../../app-context.tsx'
import { CREDENTIAL_FIELDS, credentialUpdateFromForm, credentialsFromForm, type CredentialFieldSpec } from '../../lib/credentials/fields.ts'
import { CREDENTIAL_PROVIDERS, type CloudCredential, type CredentialProvider } from '../../lib/api/types.ts'
import { Badge, ErrorNotice, PROVIDER_LABELS, SelectField, Spinner, TextArea, TextField, formatDate } from '../../components/ui.tsx'

const WRITE_ONLY = 'Write-only: stored encrypted, never shown again.'

/** A form's sending: the client's errors first (nothing is sent while there are any), then the server's answer at its fields. */
function useSubmit() {
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  async function submit(local: Record<string, string>, send: () => Promise<void>) {
    setErrors(local)
    if (Object.keys(local).length) return
    setBusy(true)
    setError(null)
    try {
      await send()
    } catch (err) {
      setError(err)
      if (err instanceof ApiError) setErrors(err.fieldErrors)
    } finally {
      setBusy(false)
    }
  }
  return { errors, setErrors, error, busy, submit }
}

/** The provider's credential fields (`json` ones as a text area across the form), each with its error. */
function ProviderFields(p: {
  provider: CredentialProvider
  form: Record<string, string>
  setForm: (form: Record<string, string>) => void
  errors: Record<string, string>
  label: (f: CredentialFieldSpec) => string
  help: (f: CredentialFieldSpec) => string | undefined
  required: boolean
}) {
  const input = (f: CredentialFieldSpec) => ({
    label: p.label(f),
    required: p.required && f.required,
    value: p.form[f.key] ?? '',
    onChange: (v: string) => p.setForm({ ...p.form, [f.key]: v }),
    help: p.help(f),
    error: p.errors[`credentials.${f.key}`],
  })
  return CREDENTIAL_FIELDS[p.provider].map((f) =>
    f.kind === 'json' ? (
      <div className="span-all" key={`${p.provider}.${f.key}`}>
        <TextArea {...input(f)} />
      </div>
    ) : (
      <TextField
        key={`${p.provider}.${f.key}`}
        {...input(f)}
        type={f.secret ? 'password' : 'text'}
        autoComplete={f.secret ? 'new-password' : 'off'}
      />
    ),
  )
}

function FormActions(p: { busy: boolean; save: string; onCancel: () => void }) {
  return (
    <div className="row gap-top">
      <button type="submit" className="btn primary" disabled={p.busy}>
        {p.busy && <Spinner />} {p.save}
      </button>
      <button type="button" className="btn" onClick={p.onCancel}>
        Cancel
      </button>
    </div>
  )
}

export function NewCredential(p: { onCancel: () => void; onCreated: (c: CloudCredential) => void }) {
  const { api, preferences } = useApp()
  const [name, setName] = useState('')
  const initial = (CREDENTIAL_PROVIDERS as readonly string[]).includes(preferences.defaultProvider)
    ? (preferences.defaultProvider as CredentialProvider)
    : 'aws'
  const [provider, setProvider] = useState<CredentialProvider>(initial)
  const [form, setForm] = useState<Record<string, string>>({})
  const { errors, setErrors, error, busy, submit } = useSubmit()

  function save(e: React.FormEvent) {
    e.preventDefault()
    const { credentials, errors: local } = credentialsFromForm(provider, form)
    if (!name.trim()) local.name = 'is required'
    return submit(local, async () => p.onCreated(await api.createCredential({ name: name.trim(), provider, credentials })))
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
        <ProviderFields
          provider={provider}
          form={form}
          setForm={setForm}
          errors={errors}
          required
          label={(f) => f.label}
          help={(f) => (f.secret && f.kind !== 'json' ? `${f.help ? `${f.help} ` : ''}${WRITE_ONLY}` : f.help)}
        />
      </div>
      <ErrorNotice error={error} what="Saving the credential" />
      <FormActions busy={busy} save="Save credential" onCancel={p.onCancel} />
    </form>
  )
}

/** The stored values as the server shows them (masked), asked for when the form opens, and when it was added. */
function StoredValues({ credential: c }: { credential: CloudCredential }) {
  const { api } = useApp()
  const [metadata, setMetadata] = useState<Record<string, unknown> | null>(null)
  useEffect(() => {
    api.getCredential(c.id).then(
      (full) => setMetadata(full.metadata ?? {}),
      () => setMetadata({}),
    )
  }, [api, c.id])
  return (
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
  const { errors, error, busy, submit } = useSubmit()

  function save(e: React.FormEvent) {
    e.preventDefault()
    const { body, errors: local, rotates } = credentialUpdateFromForm(c.provider, name, form)
    return submit(local, async () => p.onSaved({ ...c, ...(await api.updateCredential(c.id, body)) }, rotates))
  }

  return (
    <form className="card" onSubmit={save} aria-labelledby="edit-credential-title" noValidate data-testid="edit-credential">
      <h2 id="edit-credential-title">
        {c.name} <Badge kind={c.provider}>{PROVIDER_LABELS[c.provider]}</Badge>
      </h2>
      <StoredValues credential={c} />
      <div className="grid-2 gap-top">
        <TextField label="Name" required value={name} onChange={setName} error={errors.name} />
      </div>
      <p className="muted gap-top">
        To rotate the secret, fill in the new values below: they replace the stored ones as a whole. Leave them all empty to keep the stored
        secret.
      </p>
      <div className="grid-2">
        <ProviderFields
          provider={c.provider}
          form={form}
          setForm={setForm}
          errors={errors}
          required={false}
          label={(f) => (f.kind === 'json' ? `New ${f.label.toLowerCase()}` : `New ${f.label.charAt(0).toLowerCase()}${f.label.slice(1)}`)}
          help={(f) => (f.secret && f.kind !== 'json' ? WRITE_ONLY : f.help)}
        />
      </div>
      <ErrorNotice error={error} what="Saving the credential" />
      <FormActions busy={busy} save="Save" onCancel={p.onCancel} />
    </form>
  )
}
