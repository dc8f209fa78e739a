// The wizard's cloud credential step (also offered by the State backend step to create the bucket
// with): the user's credentials for the chosen provider, the provider's default preselected.
import { useEffect, useState } from 'react'
import { useApp } from '../../app-context.tsx'
import { href } from '../../router.ts'
import type { CloudCredential } from '../../lib/api/types.ts'
import type { WizardValues } from '../../lib/wizard/values.ts'
import { ErrorNotice, Notice, PROVIDER_LABELS, Spinner, formatDate } from '../../components/ui.tsx'
import type { SetValues } from './wizard-state.ts'

export function CredentialStep({ values, set, serverError }: { values: WizardValues; set: SetValues; serverError?: string }) {
  const { credentials } = useApp()
  const [list, setList] = useState<CloudCredential[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    credentials().then((data) => {
      setList(data)
      const def = data.find((c) => c.isDefault && c.provider === values.provider)
      if (!values.cloudCredentialId && def) set({ cloudCredentialId: def.id })
    }, setError)
  }, [credentials])
  if (error) return <ErrorNotice error={error} what="Loading cloud credentials" />
  if (!list) return <Spinner label="Loading cloud credentials" />
  const matching = list.filter((c) => c.provider === values.provider)
  return (
    <div className="stack">
      <p className="muted">
        The credential generation and the state bucket use. Only credentials for {PROVIDER_LABELS[values.provider]} are offered.
      </p>
      <fieldset className="plain stack">
        <legend className="visually-hidden">Cloud credential</legend>
        <label className="choice">
          <input type="radio" name="credential" checked={!values.cloudCredentialId} onChange={() => set({ cloudCredentialId: '' })} />
          <span>
            <strong>None for now</strong>
            <br />
            <span className="muted small">You can assign one later.</span>
          </span>
        </label>
        {matching.map((c) => (
          <label className="choice" key={c.id}>
            <input
              type="radio"
              name="credential"
              checked={values.cloudCredentialId === c.id}
              onChange={() => set({ cloudCredentialId: c.id })}
            />
            <span>
              <strong>{c.name}</strong> {c.isDefault && <span className="badge default">default</span>}
              <br />
              <span className="muted small">Added {formatDate(c.createdAt)}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {matching.length === 0 && (
        <Notice kind="info" title={`No ${PROVIDER_LABELS[values.provider]} credential yet`}>
          Add one under <a href={href.credentials()}>Cloud credentials</a>; your draft is kept.
        </Notice>
      )}
      {serverError && (
        <p className="error" role="alert">
          {serverError}
        </p>
      )}
    </div>
  )
}
