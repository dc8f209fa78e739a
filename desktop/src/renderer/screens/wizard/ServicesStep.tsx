// The services step, built from the catalog at run time: services grouped by category, an enable
// toggle per service, and one widget per field (text, toggle, dropdown, number) with its help text,
// default and pattern check; an organisation rule's warning is said at its field apart from errors.
import type { PreparedCatalog, WizardField, WizardService } from '../../lib/catalog/prepared-catalog.ts'
import { shortCommit, validateField } from '../../lib/catalog/prepared-catalog.ts'
import type { ServicesConfig } from '../../lib/api/types.ts'
import { SelectField, TextField, Toggle } from '../../components/ui.tsx'

export function FieldWidget(p: {
  field: WizardField
  value: unknown
  onChange: (v: unknown) => void
  serverError?: string
  /** An organisation rule's warning: said under the field, which stays valid; not shown beside an error. */
  warning?: string
  readOnly?: boolean
}) {
  const { field } = p
  const clientError = validateField(field, p.value)
  const error = clientError ?? p.serverError ?? null
  const warning = error ? null : (p.warning ?? null)
  // The pattern itself only as a detail under the message in words.
  const errorDetail = clientError && field.rule && field.type !== 'dropdown' ? field.rule : undefined
  const help = field.description
  switch (field.type) {
    case 'toggle':
      return (
        <Toggle
          label={field.label}
          checked={p.value === true}
          onChange={p.onChange}
          help={help}
          error={error}
          warning={warning}
          disabled={p.readOnly}
        />
      )
    case 'dropdown':
      return (
        <SelectField
          label={field.label}
          value={p.value as string}
          options={field.options ?? []}
          onChange={p.onChange}
          help={help}
          error={error}
          warning={warning}
          disabled={p.readOnly}
        />
      )
    case 'number':
      return (
        <TextField
          label={field.label}
          type="number"
          value={p.value === null || p.value === undefined ? '' : String(p.value)}
          onChange={(text) => p.onChange(text === '' ? null : Number.isNaN(Number(text)) ? text : Number(text))}
          help={help}
          error={error}
          warning={warning}
          errorDetail={errorDetail}
          readOnly={p.readOnly}
        />
      )
    default:
      return (
        <TextField
          label={field.label}
          value={p.value === null || p.value === undefined ? '' : String(p.value)}
          onChange={p.onChange}
          help={help}
          error={error}
          warning={warning}
          errorDetail={errorDetail}
          readOnly={p.readOnly}
        />
      )
  }
}

function ServiceCard(p: {
  service: WizardService
  values: Record<string, unknown>
  onChange: (field: string, v: unknown) => void
  serverErrors: Record<string, string>
  warnings: Record<string, string>
}) {
  const { service, values } = p
  const enabled = values.enabled === true
  return (
    <section className="service" aria-labelledby={`svc-${service.key}`} data-service={service.key}>
      <div className="service-head">
        <Toggle label={`Enable ${service.label}`} hideLabel checked={enabled} onChange={(v) => p.onChange('enabled', v)} />
        <div>
          <div className="title" id={`svc-${service.key}`}>
            {service.label}
          </div>
          <div className="key mono">{service.key}</div>
        </div>
        <div className="spacer" />
        {enabled && service.fields.length > 0 && <span className="muted small">{service.fields.length} settings</span>}
      </div>
      {enabled && service.fields.length > 0 && (
        <div className="service-body">
          {service.fields.map((f) => (
            <FieldWidget
              key={f.key}
              field={f}
              value={values[f.key]}
              onChange={(v) => p.onChange(f.key, v)}
              serverError={p.serverErrors[`services.${service.key}.${f.key}`]}
              warning={p.warnings[`services.${service.key}.${f.key}`]}
            />
          ))}
        </div>
      )}
    </section>
  )
}

export function ServicesStep(p: {
  catalog: PreparedCatalog
  services: ServicesConfig
  onChange: (services: ServicesConfig) => void
  serverErrors: Record<string, string>
  /** The organisation's rules' warnings by field. */
  warnings?: Record<string, string>
}) {
  const change = (service: string, field: string, value: unknown) =>
    p.onChange({ ...p.services, [service]: { ...p.services[service], [field]: value } })
  const enabledCount = p.catalog.services.filter((s) => p.services[s.key]?.enabled === true).length
  return (
    <div>
      <p className="muted">
        {p.catalog.services.length} services from the catalog
        {p.catalog.commit ? (
          <>
            {' '}
            (templates <code>{shortCommit(p.catalog.commit)}</code>)
          </>
        ) : null}
        ; {enabledCount} enabled. Each setting starts at the template's working default.
      </p>
      {p.catalog.groups.map((g) => (
        <div className="category" key={g.category} role="group" aria-label={g.category}>
          <h3>{g.category}</h3>
          {g.services.map((s) => (
            <ServiceCard
              key={s.key}
              service={s}
              values={p.services[s.key] ?? {}}
              onChange={(f, v) => change(s.key, f, v)}
              serverErrors={p.serverErrors}
              warnings={p.warnings ?? {}}
            />
          ))}
        </div>
      ))}
    </div>
  )
}
