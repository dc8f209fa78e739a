// The wizard's State backend step: no remote state, an existing bucket, or "Create one for me" (IES
// creates the bucket with the credential chosen right here; left empty, the name is the one IES
// proposes, `suggestedBucket`). Once created, the bucket is the environment's backend.
import { useState } from 'react'
import { useApp } from '../../app-context.tsx'
import { compilePattern } from '../../lib/catalog/prepared-catalog.ts'
import { suggestedBucket, type WizardValues } from '../../lib/wizard/values.ts'
import { ErrorNotice, Notice, Spinner, TextField, Toggle } from '../../components/ui.tsx'
import { CredentialStep } from './CredentialStep.tsx'
import { UncreatedBucketNotice } from './UncreatedBucketNotice.tsx'
import type { FieldErrors, SetValues } from './wizard-state.ts'

const BUCKET = compilePattern('[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]')!

const MODES = [
  { value: 'none', label: 'No remote state', help: 'Terraform keeps its state locally. Fine for a trial.' },
  { value: 'existing', label: 'Use an existing bucket', help: 'An S3 bucket you already have; locking uses the bucket itself.' },
  {
    value: 'create',
    label: 'Create one for me',
    help: 'IES creates a bucket with versioning and encryption, using the selected cloud credential.',
  },
] as const

type StepProps = { values: WizardValues; set: SetValues }

/** "Create the state bucket": the request, its progress and error, and the bucket made the backend once created. */
function useCreateBucket({ values, set }: StepProps, proposed: string) {
  const { api } = useApp()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [created, setCreated] = useState<string | null>(null)
  const tb = values.terraformBackend

  async function create() {
    setBusy(true)
    setError(null)
    try {
      const out = await api.createTerraformBackend({
        region: tb.region || values.region || undefined,
        bucket: tb.bucket || proposed,
        cloudCredentialId: values.cloudCredentialId,
      })
      set({ backendMode: 'existing', terraformBackend: { ...tb, bucket: out.bucket, key: out.key, region: out.region } })
      setCreated(out.bucket)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, created, create }
}

function BackendModes({ values, set }: StepProps) {
  return (
    <fieldset className="plain grid-3">
      <legend className="field-label">Where Terraform keeps its state</legend>
      {MODES.map((m) => (
        <label className="choice" key={m.value}>
          <input
            type="radio"
            name="backend-mode"
            value={m.value}
            checked={values.backendMode === m.value}
            onChange={() => set({ backendMode: m.value })}
          />
          <span>
            <strong>{m.label}</strong>
            <br />
            <span className="muted small">{m.help}</span>
          </span>
        </label>
      ))}
    </fieldset>
  )
}

function BucketFields({ values, set, serverErrors, proposed }: StepProps & { serverErrors: FieldErrors; proposed: string }) {
  const tb = values.terraformBackend
  const setTb = (patch: Partial<WizardValues['terraformBackend']>) => set({ terraformBackend: { ...tb, ...patch } })
  return (
    <div className="grid-2">
      <TextField
        label="Bucket name"
        value={tb.bucket}
        onChange={(bucket) => setTb({ bucket })}
        placeholder={values.backendMode === 'create' ? proposed || 'Name the bucket' : 'my-terraform-state'}
        help={values.backendMode === 'create' && proposed ? `Left empty, IES creates ${proposed}.` : undefined}
        error={
          serverErrors['terraformBackend.bucket'] ??
          (tb.bucket && !BUCKET.test(tb.bucket) ? 'Lowercase letters, digits, dots and hyphens; 3 to 63 characters' : null)
        }
      />
      <TextField
        label="Bucket region"
        value={tb.region}
        placeholder={values.region}
        onChange={(region) => setTb({ region })}
        error={serverErrors['terraformBackend.region']}
      />
      <TextField
        label="State key"
        value={tb.key}
        placeholder="Scoped per environment by default"
        onChange={(key) => setTb({ key })}
        help="Left empty, the state key is env/<environment id>/aws.tfstate."
        error={serverErrors['terraformBackend.key']}
      />
      <Toggle
        label="Native state locking"
        checked={tb.useLockfile}
        onChange={(useLockfile) => setTb({ useLockfile })}
        help="The generated backend always locks with the bucket itself (no lock table)."
      />
    </div>
  )
}

export function BackendStep({ values, set, serverErrors }: StepProps & { serverErrors: FieldErrors }) {
  // "Create one for me" with the name left empty: the name IES proposes, shown and sent.
  const proposed = values.backendMode === 'create' ? suggestedBucket(values) : ''
  const bucket = useCreateBucket({ values, set }, proposed)
  return (
    <div className="stack">
      <BackendModes values={values} set={set} />
      {values.backendMode !== 'none' && <BucketFields values={values} set={set} serverErrors={serverErrors} proposed={proposed} />}
      {values.backendMode === 'create' && (
        <>
          {/* The bucket is created with a credential: chosen here, the same choice as the Cloud credential step. */}
          <h3 className="field-label">Create it with</h3>
          <CredentialStep values={values} set={set} />
          <div className="row">
            <button
              type="button"
              className="btn primary"
              disabled={bucket.busy || !values.cloudCredentialId || !(values.terraformBackend.bucket || proposed)}
              onClick={bucket.create}
            >
              {bucket.busy && <Spinner />} Create the state bucket
            </button>
            {!values.cloudCredentialId && (
              <span className="muted small" data-testid="backend-needs-credential">
                Choose the credential to create the bucket with.
              </span>
            )}
          </div>
          <UncreatedBucketNotice values={values} testId="backend-not-created" />
        </>
      )}
      {bucket.created && (
        <Notice kind="ok" title="State bucket created">
          {bucket.created}
        </Notice>
      )}
      <ErrorNotice error={bucket.error} what="Creating the state bucket" />
    </div>
  )
}
