// The wizard's first step: the team, the name and global prefix (immutable once created), the
// provider, the region and the domain, with the catalog's labels, help and rules for the global fields.
import { PROVIDERS, TIERS } from '../../lib/api/types.ts'
import { PROVIDER_LABELS, SelectField, TextField } from '../../components/ui.tsx'
import type { OpenWizard } from './wizard-state.ts'

function TeamField({ wizard }: { wizard: OpenWizard }) {
  const { values, editing, editorOf, set, clearServerError, serverErrors } = wizard
  if (!(editorOf.length > 0 || values.team)) return null
  return (
    <SelectField
      label="Team"
      value={values.team}
      options={[
        { value: '', label: 'Just me (personal)' },
        ...editorOf.filter((t) => t.name !== values.team).map((t) => ({ value: t.name, label: t.name })),
        ...(values.team ? [{ value: values.team, label: values.team }] : []),
      ]}
      onChange={(team) => (set({ team, cloudCredentialId: '' }), clearServerError('team'))}
      disabled={editing}
      help={editing ? 'Set at creation.' : "A team's environments are shared with its members, as far as each one's role allows."}
      error={serverErrors.team}
    />
  )
}

export function GlobalStep({ wizard }: { wizard: OpenWizard }) {
  const { values, editing, set, touch, clearServerError, serverErrors, fieldError, fieldWarning, ruleDetail } = wizard
  const global = wizard.loaded.catalog.global
  const globalHelp = (k: string, fallback: string) => global[k]?.description ?? fallback
  return (
    <div className="grid-2">
      <TeamField wizard={wizard} />
      <TextField
        label={global.name?.label ?? 'Environment name'}
        required
        value={values.name}
        readOnly={editing}
        onChange={(name) => (set({ name }), touch('name'), clearServerError('name'))}
        help={editing ? 'Immutable after creation.' : globalHelp('name', 'Lowercase letters, digits and hyphens; 3 to 50 characters.')}
        error={fieldError('name')}
        warning={fieldWarning('name')}
        errorDetail={ruleDetail('name')}
      />
      <TextField
        label={global.globalPrefix?.label ?? 'Global prefix'}
        required
        value={values.globalPrefix}
        readOnly={editing}
        onChange={(globalPrefix) => (set({ globalPrefix }), touch('globalPrefix'))}
        help={editing ? 'Immutable after creation.' : globalHelp('globalPrefix', 'Prefixes every resource name.')}
        error={fieldError('globalPrefix')}
        warning={fieldWarning('globalPrefix')}
        errorDetail={ruleDetail('globalPrefix')}
      />
      <SelectField
        label="Provider"
        required
        value={values.provider}
        options={PROVIDERS.map((p) => ({ value: p, label: PROVIDER_LABELS[p] }))}
        onChange={(provider) => set({ provider, cloudCredentialId: '' })}
        help={
          values.provider === 'aws' ? 'The catalog describes AWS.' : 'Only AWS generates a working stack; other providers are stored only.'
        }
        error={serverErrors.provider}
      />
      <TextField
        label={global.region?.label ?? 'Region'}
        required
        value={values.region}
        onChange={(region) => (set({ region }), touch('region'))}
        help={globalHelp('region', 'Lowercase letters, digits and hyphens.')}
        error={fieldError('region')}
        warning={fieldWarning('region')}
        errorDetail={ruleDetail('region')}
      />
      <SelectField
        label="Tier"
        value={values.labels?.tier ?? ''}
        options={[{ value: '', label: 'Not set' }, ...TIERS.map((tier) => ({ value: tier, label: tier }))]}
        onChange={(tier) => (set({ labels: { ...values.labels, tier } }), clearServerError('labels.tier'))}
        help="The label tier: the organisation's rules for production apply to a production environment."
        error={fieldError('labels.tier')}
        warning={fieldWarning('labels.tier')}
      />
      <TextField
        label={global.domain?.label ?? 'Domain'}
        value={values.domain}
        placeholder="example.com"
        onChange={(domain) => (set({ domain }), touch('domain'))}
        help={globalHelp('domain', 'Optional. Without a domain no host-based ingresses are generated.')}
        error={fieldError('domain')}
        warning={fieldWarning('domain')}
        errorDetail={ruleDetail('domain')}
      />
    </div>
  )
}
