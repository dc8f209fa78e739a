// The wizard's review: what will be created or saved, readable, with the
// catalog's labels; when editing, what changes first; the request as YAML only on request.
import { useEffect, useState } from 'react'
import { stringify } from 'yaml'
import { useApp } from '../app-context.tsx'
import type { PreparedCatalog } from '../lib/catalog/prepared-catalog.ts'
import { enabledServices, serviceChanges, settingChanges } from '../lib/environments/config-summary.ts'
import { driftCheckHoursOf, reviewOf, type WizardValues } from '../lib/wizard/values.ts'
import { driftScheduleWords } from '../lib/environments/drift.ts'
import { PROVIDER_LABELS } from './ui.tsx'
import { BasicFields, DeliveryFields, deployKeyNote, ServiceFields } from './ConfigurationFields.tsx'

const SETTING_LABELS = {
  provider: 'Provider',
  region: 'Region',
  domain: 'Domain',
  bucket: 'State bucket',
  gitUrl: 'Repository URL',
  gitBranch: 'Branch',
  cloudCredentialId: 'Cloud credential',
  driftCheck: 'Drift check',
}

function settingsOf(v: WizardValues, credentialName: (id: string) => string) {
  return {
    provider: PROVIDER_LABELS[v.provider] ?? v.provider,
    region: v.region,
    domain: v.domain,
    bucket: v.backendMode === 'none' ? '' : v.terraformBackend.bucket,
    gitUrl: v.gitRepository.url,
    gitBranch: v.gitRepository.url ? v.gitRepository.branch : '',
    cloudCredentialId: v.cloudCredentialId ? credentialName(v.cloudCredentialId) : '',
    driftCheck: driftScheduleWords(driftCheckHoursOf(v)),
  }
}

export function ReviewSummary(p: { values: WizardValues; original: WizardValues | null; catalog: PreparedCatalog; editing: boolean }) {
  const { credentials } = useApp()
  const { values: v, catalog } = p
  const [names, setNames] = useState<Record<string, string>>({})
  const [yaml, setYaml] = useState(false)
  useEffect(() => {
    if (v.cloudCredentialId || p.original?.cloudCredentialId)
      credentials().then(
        (list) => setNames(Object.fromEntries(list.map((c) => [c.id, c.name]))),
        () => {},
      )
  }, [credentials])
  const credentialName = (id: string) => names[id] ?? id
  const services = enabledServices(v.services, catalog)
  const disabled = catalog.services.length - services.filter((s) => catalog.services.some((c) => c.key === s.key)).length
  const changes = p.original
    ? [
        ...settingChanges(settingsOf(p.original, credentialName), settingsOf(v, credentialName), SETTING_LABELS),
        ...serviceChanges(p.original.services, v.services, catalog),
        ...(v.gitRepository.deployKey ? ['Replaces the deploy key'] : []),
      ]
    : null
  return (
    <div className="stack" data-testid="review-summary">
      {changes && (
        <section aria-labelledby="review-changes">
          <h3 id="review-changes">What changes</h3>
          {changes.length === 0 ? (
            <p className="muted">Nothing changed yet.</p>
          ) : (
            <ul data-testid="review-changes">
              {changes.map((c) => (
                <li key={c}>{c}</li>
              ))}
            </ul>
          )}
        </section>
      )}
      <section aria-labelledby="review-basics">
        <h3 id="review-basics">Basics</h3>
        <dl className="props">
          <BasicFields name={v.name} globalPrefix={v.globalPrefix} provider={v.provider} region={v.region} domain={v.domain} />
        </dl>
      </section>
      <section aria-labelledby="review-services">
        <h3 id="review-services">
          Services: {services.length} enabled{disabled > 0 ? `, ${disabled} stay off` : ''}
        </h3>
        {services.length === 0 && <p className="muted">No service is enabled; the repository holds only the basics.</p>}
        <ServiceFields services={services} />
      </section>
      <section aria-labelledby="review-delivery">
        <h3 id="review-delivery">State, repository, credential and drift check</h3>
        <dl className="props">
          <DeliveryFields
            bucket={v.backendMode !== 'none' ? v.terraformBackend.bucket : undefined}
            git={{
              ...v.gitRepository,
              deployKey: deployKeyNote({ replacing: !!v.gitRepository.deployKey, stored: !!v.gitRepository.hasDeployKey }),
            }}
            credential={v.cloudCredentialId ? credentialName(v.cloudCredentialId) : null}
            driftCheckHours={driftCheckHoursOf(v)}
          />
        </dl>
      </section>
      <div>
        <button type="button" className="btn small" aria-expanded={yaml} onClick={() => setYaml(!yaml)}>
          {yaml ? 'Hide the YAML' : 'Show as YAML'}
        </button>
      </div>
      {yaml && (
        <pre className="code" aria-label="Resulting configuration" data-testid="review">
          {stringify(reviewOf(v, p.editing))}
        </pre>
      )}
    </div>
  )
}
