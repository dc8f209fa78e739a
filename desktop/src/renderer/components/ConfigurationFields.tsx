// An environment's configuration as a list of fields, one way wherever it is shown: the wizard's
// review (the values about to be saved) and the environment's detail page (the stored ones). The
// callers turn their own shape into these props; labels, order and wording live here only.
import type { ReactNode } from 'react'
import type { SummaryService } from '../lib/environments/config-summary.ts'
import { driftScheduleWords } from '../lib/environments/drift.ts'
import { PROVIDER_LABELS } from './ui.tsx'

const none = (text = 'None') => <span className="muted">{text}</span>

/** Name, prefix, provider, region, domain (`dt`/`dd` pairs for a `dl.props`); name and provider when given. */
export function BasicFields(p: { name?: string; globalPrefix: string; provider?: string; region: string; domain?: string }) {
  return (
    <>
      {p.name !== undefined && (
        <>
          <dt>Name</dt>
          <dd className="mono">{p.name}</dd>
        </>
      )}
      <dt>Global prefix</dt>
      <dd className="mono">{p.globalPrefix}</dd>
      {p.provider !== undefined && (
        <>
          <dt>Provider</dt>
          <dd>{PROVIDER_LABELS[p.provider] ?? p.provider}</dd>
        </>
      )}
      <dt>Region</dt>
      <dd className="mono">{p.region}</dd>
      <dt>Domain</dt>
      <dd>{p.domain ? <span className="mono">{p.domain}</span> : none('None (no host-based ingresses)')}</dd>
    </>
  )
}

/** What is said of the deploy key: a new one being saved, one stored, or none. */
export function deployKeyNote(key: { replacing: boolean; stored: boolean }): string {
  if (key.replacing) return 'Setting the deploy key: a new key (write-only: stored encrypted, never shown)'
  return key.stored ? 'Deploy key stored' : 'No deploy key'
}

/** The state bucket, the Git repository and its deploy key, the cloud credential, the drift check's schedule (`dt`/`dd` pairs). */
export function DeliveryFields(p: {
  bucket?: string
  git?: { url: string; branch?: string; deployKey: string }
  credential: ReactNode | null
  /** Check for drift every this many hours; undefined: only when asked. */
  driftCheckHours: number | undefined
}) {
  return (
    <>
      <dt>Terraform state</dt>
      <dd>{p.bucket ? <span className="mono">s3://{p.bucket}</span> : none('Local state')}</dd>
      <dt>Git repository</dt>
      <dd>
        {p.git?.url ? (
          <>
            <span className="mono">{p.git.url}</span> <span className="muted">({p.git.branch || 'main'})</span>
            <br />
            <span className="muted small">{p.git.deployKey}</span>
          </>
        ) : (
          none()
        )}
      </dd>
      <dt>Cloud credential</dt>
      <dd>{p.credential ?? none()}</dd>
      <dt>Drift check</dt>
      <dd data-testid="drift-schedule">
        {p.driftCheckHours ? driftScheduleWords(p.driftCheckHours) : none(driftScheduleWords(undefined))}
      </dd>
    </>
  )
}

/** The enabled services, each field with the catalog's label and its value as its widget shows it. */
export function ServiceFields({ services, testId }: { services: SummaryService[]; testId?: string }) {
  return (
    <ul className="service-summary" data-testid={testId}>
      {services.map((s) => (
        <li key={s.key} data-summary-service={s.key}>
          <strong>{s.label}</strong>
          <dl>
            {s.fields.map((f) => (
              <div key={f.key} className={f.isDefault ? 'is-default' : undefined} title={`${s.key}.${f.key}`}>
                <dt>{f.label}</dt>
                <dd>
                  {f.value}
                  {f.isDefault && <span className="muted small"> (default)</span>}
                </dd>
              </div>
            ))}
          </dl>
        </li>
      ))}
    </ul>
  )
}
