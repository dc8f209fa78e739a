// The environment wizard (create and edit): basics, services from the catalog, state backend, Git
// repository, cloud credential, review. Drafts are kept locally with the catalog's commit.
import { useEffect, useMemo, useRef, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { href, navigate } from '../router.ts'
import { ApiError } from '@ies/api'
import { compilePattern, fillServices, validateField, validateServices } from '../lib/catalog/prepared-catalog.ts'
import type { LoadedCatalog } from '../lib/catalog/source.ts'
import { describeChange, diffDraft, draftKey, loadDraft, saveDraft, type CatalogChange } from '../lib/wizard/draft.ts'
import { checkBasics } from '../lib/environments/rules.ts'
import { applySuggestion as applyToValues } from '../lib/wizard/apply-suggestion.ts'
import { PROVIDERS, type CloudCredential, type Environment, type Team } from '../lib/api/types.ts'
import {
  emptyValues,
  draftValuesOf,
  stepOfField,
  suggestedBucket,
  toCreateRequest,
  toUpdatePatch,
  uncreatedBucket,
  valuesFromEnvironment,
  WIZARD_STEPS,
  type WizardValues,
} from '../lib/wizard/values.ts'
import {
  ErrorNotice,
  Notice,
  PageHead,
  PROVIDER_LABELS,
  SelectField,
  Spinner,
  TextArea,
  TextField,
  Toggle,
  formatDate,
} from '../components/ui.tsx'
import { ServicesStep } from './ServiceFields.tsx'
import { StrandedNotice } from '../components/StrandedNotice.tsx'
import { strandedErrors } from '../lib/environments/stranded.ts'
import { CatalogNotices, CatalogSourceLine } from '../components/CatalogNotices.tsx'
import { ReviewSummary } from '../components/ReviewSummary.tsx'
import { EnvironmentDiagram } from '../components/EnvironmentDiagram.tsx'
import { AssistantPanel, type AssistantChatReply, type SuggestionValue } from '../components/AssistantPanel.tsx'

export function Wizard({ id }: { id: string | null }) {
  const app = useApp()
  const { api } = app
  const editing = id !== null
  const [loaded, setLoaded] = useState<LoadedCatalog | null>(null)
  const [original, setOriginal] = useState<Environment | null>(null)
  const [values, setValues] = useState<WizardValues | null>(null)
  const [step, setStep] = useState(0)
  const [loadError, setLoadError] = useState<unknown>(null)
  const [submitError, setSubmitError] = useState<unknown>(null)
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const [draftInfo, setDraftInfo] = useState<{ savedAt: string; changes: CatalogChange[]; leftOut: string[] } | null>(null)
  const [touched, setTouched] = useState<Record<string, boolean>>({})
  const heading = useRef<HTMLHeadingElement>(null)
  const assistantToggle = useRef<HTMLButtonElement>(null)
  const [assistantOpen, setAssistantOpen] = useState(false)
  const key = draftKey(app.subject, id)
  // The teams the user may create environments in (editor); none: the team field is not shown.
  const [editorOf, setEditorOf] = useState<Team[]>([])
  useEffect(() => {
    let live = true
    api.teams().then(
      (teams) => live && setEditorOf(teams.filter((t) => t.role === 'editor')),
      () => live && setEditorOf([]),
    )
    return () => {
      live = false
    }
  }, [api])

  useEffect(() => {
    let live = true
    ;(async () => {
      const catalog = await app.catalog()
      const env = editing ? await api.getEnvironment(id) : null
      if (!live) return
      let v = env
        ? valuesFromEnvironment(env)
        : emptyValues({
            provider: app.preferences.defaultProvider,
            globalPrefix: String(catalog.catalog.global.globalPrefix?.default ?? ''),
            region: String(catalog.catalog.global.region?.default ?? ''),
          })
      const draft = loadDraft<WizardValues>(localStorage, key)
      if (draft) {
        v = draftValuesOf(draft.values).values
        setDraftInfo({ savedAt: draft.savedAt, changes: diffDraft(draft, catalog.catalog), leftOut: draft.leftOut ?? [] })
        if (typeof draft.step === 'number') setStep(draft.step)
      } else if (env?.problems?.length) {
        // A stranded environment opens where its first refused value is.
        setStep(stepOfField(env.problems[0].field))
      }
      // Rule 1: the services start empty (or as stored) and are filled in place from the catalog.
      fillServices(v.services, catalog.catalog)
      setLoaded(catalog)
      setOriginal(env)
      setValues(v)
    })().catch((e) => live && setLoadError(e))
    return () => {
      live = false
    }
  }, [api, id])

  useEffect(() => {
    if (!values || !loaded) return
    // Never a secret in browser storage: the draft keeps everything but the deploy key.
    const kept = draftValuesOf(values)
    saveDraft(localStorage, key, loaded.catalog, kept.values, { step, leftOut: kept.leftOut })
  }, [values, step, loaded, key])

  useEffect(() => heading.current?.focus(), [step])

  const basicsErrors = useMemo(() => (values ? checkBasics(values) : {}), [values])
  const catalogGlobalErrors = useMemo(() => {
    const out: Record<string, string> = {}
    if (!values || !loaded) return out
    for (const k of ['name', 'globalPrefix', 'region', 'domain'] as const) {
      const f = loaded.catalog.global[k]
      const message = f && values[k] !== '' ? validateField(f, values[k]) : null
      if (message) out[k] = message
    }
    return out
  }, [values, loaded])
  const serviceErrors = useMemo(() => (values && loaded ? validateServices(values.services, loaded.catalog) : {}), [values, loaded])
  // The stored values the current catalog refuses, while they are still the stored ones; then the server's answer.
  const knownErrors = useMemo(() => ({ ...strandedErrors(original, values), ...serverErrors }), [original, values, serverErrors])

  if (loadError) return <ErrorNotice error={loadError} what={editing ? 'Loading the environment' : 'Opening the wizard'} />
  if (!values || !loaded) return <Spinner label="Loading the wizard" />

  const set = (patch: Partial<WizardValues>) => setValues((v) => ({ ...v!, ...patch }))
  const clearServerError = (field: string) =>
    setServerErrors((e) => {
      if (!(field in e)) return e
      const { [field]: _gone, ...rest } = e
      return rest
    })
  const fieldError = (field: string) => {
    const client = field in basicsErrors ? basicsErrors[field] : catalogGlobalErrors[field]
    return (touched[field] || step > 0 ? client : null) ?? knownErrors[field] ?? null
  }
  const stepHasErrors = (i: number) =>
    (i === 0 && Object.keys({ ...basicsErrors, ...catalogGlobalErrors }).length > 0) ||
    (i === 1 && Object.keys(serviceErrors).length > 0) ||
    Object.keys(knownErrors).some((f) => stepOfField(f) === i)
  /** The catalog's pattern behind a basics error in words, as a detail. */
  const ruleDetail = (k: string) => (fieldError(k) && fieldError(k) === catalogGlobalErrors[k] ? loaded.catalog.global[k]?.rule : undefined)
  const globalHelp = (k: string, fallback: string) => loaded.catalog.global[k]?.description ?? fallback

  async function submit() {
    const v = values!
    if (Object.keys({ ...basicsErrors, ...catalogGlobalErrors }).length) return setStep(0)
    if (Object.keys(serviceErrors).length) return setStep(1)
    setBusy(true)
    setSubmitError(null)
    setServerErrors({})
    try {
      const saved = editing ? await api.updateEnvironment(id, toUpdatePatch(v) as never) : await api.createEnvironment(toCreateRequest(v))
      localStorage.removeItem(key)
      app.rememberEnvironment(saved)
      app.toast(editing ? `Saved ${saved.name}` : `Created ${saved.name}`)
      navigate(href.environment(saved.id))
    } catch (e) {
      setSubmitError(e)
      if (e instanceof ApiError) {
        const fe = e.fieldErrors
        // A duplicate name (409) belongs at the name field, in words.
        if (e.code === 'CONFLICT' && !editing && !fe.name)
          fe.name = `You already have an environment named "${v.name}". Choose another name.`
        setServerErrors(fe)
        const first = Object.keys(fe)[0]
        if (first) setStep(stepOfField(first))
      }
    } finally {
      setBusy(false)
    }
  }

  /**
   * A suggestion of the assistant, applied to the draft (catalog paths: a global field or
   * services.<key>.<field>). Applied to the latest values, so that "Apply all" (one call per
   * suggestion in the same click) keeps every one of them.
   */
  function applySuggestion(path: string, value: SuggestionValue) {
    const outcome = applyToValues(values!, path, value, editing)
    if ('refused' in outcome) return app.toast(outcome.refused)
    setValues((v) => {
      const next = applyToValues(v!, path, value, editing)
      return 'values' in next ? next.values : v
    })
    if (!path.startsWith('services.')) setTouched((t) => ({ ...t, [path]: true }))
    // No toast: the panel marks the suggestion Applied, and an "Apply all" would stack one per value
    // over the panel's own controls.
  }

  /** The catalog's label of a suggestion's path: "EKS · Public API endpoint", a global field's label, or undefined. */
  function labelOf(path: string): string | undefined {
    const [head, key, field, ...rest] = path.split('.')
    if (key === undefined) return loaded!.catalog.global[head]?.label
    if (head !== 'services' || field === undefined || rest.length) return undefined
    const service = loaded!.catalog.services.find((s) => s.key === key)
    const fieldLabel = field === 'enabled' ? 'Enabled' : service?.fields.find((f) => f.key === field)?.label
    return service && fieldLabel ? `${service.label} · ${fieldLabel}` : undefined
  }

  function closeAssistant() {
    setAssistantOpen(false)
    assistantToggle.current?.focus()
  }

  function discardDraft() {
    localStorage.removeItem(key)
    location.reload()
  }

  const isLast = step === WIZARD_STEPS.length - 1
  return (
    <>
      <PageHead
        crumbs={
          <>
            <a href={href.environments()}>Environments</a>
            {original && (
              <>
                {' / '}
                <a href={href.environment(original.id)}>{original.name}</a>
              </>
            )}
          </>
        }
        title={editing ? `Edit ${original?.name ?? ''}` : 'New environment'}
        subtitle={
          <>
            Every choice below comes from the service catalog the templates declare. <CatalogSourceLine loaded={loaded} />.
          </>
        }
        actions={
          <>
            <button
              type="button"
              className="btn"
              ref={assistantToggle}
              aria-expanded={assistantOpen}
              aria-controls="wizard-assistant"
              onClick={() => (assistantOpen ? closeAssistant() : setAssistantOpen(true))}
            >
              Assistant
            </button>
            <a className="btn" href={original ? href.environment(original.id) : href.environments()}>
              Cancel
            </a>
          </>
        }
      />
      <CatalogNotices loaded={loaded} />
      {original && <StrandedNotice env={original} inWizard />}
      {draftInfo && (
        <Notice
          kind={draftInfo.changes.some((c) => c.kind.endsWith('vanished') || c.kind === 'field-changed') ? 'warn' : 'info'}
          title={`Draft restored (saved ${formatDate(draftInfo.savedAt)})`}
          testId="draft-notice"
        >
          {draftInfo.changes.length > 0 ? (
            <>
              The catalog changed since this draft was saved:
              <ul>
                {draftInfo.changes.map((c, i) => (
                  <li key={i}>{describeChange(c)}</li>
                ))}
              </ul>
            </>
          ) : (
            'You are continuing where you left off.'
          )}{' '}
          {draftInfo.leftOut.length > 0 && (
            <>Drafts never keep secrets: enter the {draftInfo.leftOut.join(' and ')} again (step Git repository). </>
          )}
          <button type="button" className="btn link" onClick={discardDraft}>
            Discard the draft
          </button>
        </Notice>
      )}
      <div className={assistantOpen ? 'wizard with-assistant' : 'wizard'}>
        <nav aria-label="Wizard steps">
          <ol className="steps">
            {WIZARD_STEPS.map((label, i) => (
              <li key={label} className={stepHasErrors(i) ? 'has-error' : i < step ? 'done' : ''}>
                <button type="button" aria-current={i === step ? 'step' : undefined} onClick={() => setStep(i)}>
                  <span className="num" aria-hidden="true">
                    {i + 1}
                  </span>
                  {label}
                  {stepHasErrors(i) && <span className="visually-hidden"> (has errors)</span>}
                </button>
              </li>
            ))}
          </ol>
        </nav>
        <div className="card">
          <h2 tabIndex={-1} ref={heading}>
            {WIZARD_STEPS[step]}
          </h2>
          {step === 0 && (
            <div className="grid-2">
              {(editorOf.length > 0 || values.team) && (
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
                  help={
                    editing ? 'Set at creation.' : "A team's environments are shared with its members, as far as each one's role allows."
                  }
                  error={serverErrors.team}
                />
              )}
              <TextField
                label={loaded.catalog.global.name?.label ?? 'Environment name'}
                required
                value={values.name}
                readOnly={editing}
                onChange={(name) => (set({ name }), setTouched((t) => ({ ...t, name: true })), clearServerError('name'))}
                help={
                  editing ? 'Immutable after creation.' : globalHelp('name', 'Lowercase letters, digits and hyphens; 3 to 50 characters.')
                }
                error={fieldError('name')}
                errorDetail={ruleDetail('name')}
              />
              <TextField
                label={loaded.catalog.global.globalPrefix?.label ?? 'Global prefix'}
                required
                value={values.globalPrefix}
                readOnly={editing}
                onChange={(globalPrefix) => (set({ globalPrefix }), setTouched((t) => ({ ...t, globalPrefix: true })))}
                help={editing ? 'Immutable after creation.' : globalHelp('globalPrefix', 'Prefixes every resource name.')}
                error={fieldError('globalPrefix')}
                errorDetail={ruleDetail('globalPrefix')}
              />
              <SelectField
                label="Provider"
                required
                value={values.provider}
                options={PROVIDERS.map((p) => ({ value: p, label: PROVIDER_LABELS[p] }))}
                onChange={(provider) => set({ provider, cloudCredentialId: '' })}
                help={
                  values.provider === 'aws'
                    ? 'The catalog describes AWS.'
                    : 'Only AWS generates a working stack; other providers are stored only.'
                }
                error={serverErrors.provider}
              />
              <TextField
                label={loaded.catalog.global.region?.label ?? 'Region'}
                required
                value={values.region}
                onChange={(region) => (set({ region }), setTouched((t) => ({ ...t, region: true })))}
                help={globalHelp('region', 'Lowercase letters, digits and hyphens.')}
                error={fieldError('region')}
                errorDetail={ruleDetail('region')}
              />
              <TextField
                label={loaded.catalog.global.domain?.label ?? 'Domain'}
                value={values.domain}
                placeholder="example.com"
                onChange={(domain) => (set({ domain }), setTouched((t) => ({ ...t, domain: true })))}
                help={globalHelp('domain', 'Optional. Without a domain no host-based ingresses are generated.')}
                error={fieldError('domain')}
                errorDetail={ruleDetail('domain')}
              />
            </div>
          )}
          {step === 1 && values.provider !== 'aws' && (
            <Notice kind="info" title={`No ${PROVIDER_LABELS[values.provider]} services yet`} testId="provider-not-generated">
              IES generates infrastructure for AWS only today. The catalog's services are AWS services, so none is offered for{' '}
              {PROVIDER_LABELS[values.provider]}: this environment is stored, and generating it produces no stack.
            </Notice>
          )}
          {step === 1 && values.provider === 'aws' && (
            <ServicesStep
              catalog={loaded.catalog}
              services={values.services}
              onChange={(services) => set({ services })}
              serverErrors={{ ...knownErrors, ...serviceErrors }}
            />
          )}
          {step === 2 && <BackendStep values={values} set={set} serverErrors={serverErrors} />}
          {step === 3 && (
            <div className="grid-2">
              <TextField
                label="Repository URL"
                value={values.gitRepository.url}
                placeholder="https://git.example.com/team/infrastructure.git"
                onChange={(url) => set({ gitRepository: { ...values.gitRepository, url } })}
                help="HTTPS address of the repository the generated code is pushed to. Optional."
                error={
                  serverErrors['gitRepository.url'] ??
                  (values.gitRepository.url && !/^https:\/\//.test(values.gitRepository.url) ? 'Must start with https://' : null)
                }
              />
              <TextField
                label="Branch"
                value={values.gitRepository.branch}
                onChange={(branch) => set({ gitRepository: { ...values.gitRepository, branch } })}
                error={serverErrors['gitRepository.branch']}
              />
              <div className="span-all">
                <TextArea
                  label="Deploy key or access token (write-only)"
                  value={values.gitRepository.deployKey}
                  placeholder={
                    values.gitRepository.hasDeployKey
                      ? 'A key is stored. Paste a new one to replace it.'
                      : 'An access token with push rights to this repository'
                  }
                  onChange={(deployKey) => set({ gitRepository: { ...values.gitRepository, deployKey } })}
                  help="Stored encrypted and never shown again. Pushes go over HTTPS with this token as the password; an SSH private key cannot authenticate them."
                  error={serverErrors['gitRepository.deployKey']}
                />
                {values.gitRepository.hasDeployKey && !values.gitRepository.deployKey && (
                  <p className="help">A deploy key is stored for this environment.</p>
                )}
              </div>
            </div>
          )}
          {step === 4 && <CredentialStep values={values} set={set} serverError={serverErrors.cloudCredentialId} />}
          {step === 5 && (
            <ReviewSummary
              values={values}
              original={original ? originalValues(original, loaded.catalog) : null}
              catalog={loaded.catalog}
              editing={editing}
            />
          )}
          {step === 5 && values.provider === 'aws' && (
            <EnvironmentDiagram services={loaded.catalog.diagram} values={values.services} testId="review-diagram" />
          )}
          {isLast && <UncreatedBucketNotice values={values} testId="review-bucket-not-created" />}
          <ErrorNotice error={submitError} what={editing ? 'Saving' : 'Creating the environment'} />
          <div className="wizard-foot">
            <button type="button" className="btn" disabled={step === 0} onClick={() => setStep(step - 1)}>
              Back
            </button>
            {isLast ? (
              <button type="button" className="btn primary" disabled={busy} onClick={submit}>
                {busy && <Spinner />} {editing ? 'Save changes' : 'Create environment'}
              </button>
            ) : (
              <button type="button" className="btn primary" onClick={() => setStep(step + 1)}>
                Next: {WIZARD_STEPS[step + 1]}
              </button>
            )}
          </div>
        </div>
        {assistantOpen && (
          <div id="wizard-assistant">
            <AssistantPanel
              draft={{ ...values }}
              environmentId={id}
              onApply={applySuggestion}
              labelOf={labelOf}
              callApi={(request) => api.aiChat<AssistantChatReply>(request)}
              onClose={closeAssistant}
              autoFocus
            />
          </div>
        )}
      </div>
    </>
  )
}

/** The stored environment as wizard values, filled from the catalog like the edited copy (for "what changes"). */
function originalValues(env: Environment, catalog: LoadedCatalog['catalog']): WizardValues {
  const v = valuesFromEnvironment(env)
  fillServices(v.services, catalog)
  return v
}

/**
 * "Create one for me" while the bucket is not created: said plainly at the State backend step (until
 * "Create the state bucket" succeeded) and beside the save/create button.
 */
function UncreatedBucketNotice({ values, testId }: { values: WizardValues; testId: string }) {
  const pending = uncreatedBucket(values)
  if (!pending) return null
  return (
    <Notice kind="warn" title="The state bucket does not exist yet" testId={testId}>
      {pending.bucket ? <span className="mono">{pending.bucket}</span> : 'The bucket'} is created only by "Create the state bucket" (step
      State backend); generation and pushes use it only after it is created.{' '}
      {pending.stored
        ? 'Until then the generated code names a bucket Terraform cannot reach.'
        : 'Until then this environment keeps its Terraform state locally.'}
    </Notice>
  )
}

const BUCKET = compilePattern('[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]')!

function BackendStep({
  values,
  set,
  serverErrors,
}: {
  values: WizardValues
  set: (p: Partial<WizardValues>) => void
  serverErrors: Record<string, string>
}) {
  const { api } = useApp()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [created, setCreated] = useState<string | null>(null)
  const tb = values.terraformBackend
  const setTb = (patch: Partial<WizardValues['terraformBackend']>) => set({ terraformBackend: { ...tb, ...patch } })
  // "Create one for me" with the name left empty: the name IES proposes, shown and sent.
  const proposed = values.backendMode === 'create' ? suggestedBucket(values) : ''

  async function createOne() {
    setBusy(true)
    setError(null)
    try {
      const res = (await api.createTerraformBackend({
        provider: values.provider,
        region: tb.region || values.region,
        name: values.name,
        globalPrefix: values.globalPrefix,
        bucket: tb.bucket || proposed,
        cloudCredentialId: values.cloudCredentialId,
      })) as Record<string, any>
      const out = (res?.terraformBackend ?? res) as Record<string, any>
      setTb({ bucket: out.bucket ?? tb.bucket, key: out.key ?? tb.key, region: out.region ?? tb.region })
      set({
        backendMode: 'existing',
        terraformBackend: { ...tb, bucket: out.bucket ?? tb.bucket, key: out.key ?? tb.key, region: out.region ?? tb.region },
      })
      setCreated(out.bucket ?? null)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  const modes = [
    { value: 'none', label: 'No remote state', help: 'Terraform keeps its state locally. Fine for a trial.' },
    { value: 'existing', label: 'Use an existing bucket', help: 'An S3 bucket you already have; locking uses the bucket itself.' },
    {
      value: 'create',
      label: 'Create one for me',
      help: 'IES creates a bucket with versioning and encryption, using the selected cloud credential.',
    },
  ] as const
  return (
    <div className="stack">
      <fieldset className="plain grid-3">
        <legend className="field-label">Where Terraform keeps its state</legend>
        {modes.map((m) => (
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
      {values.backendMode !== 'none' && (
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
      )}
      {values.backendMode === 'create' && (
        <>
          {/* The bucket is created with a credential: chosen here, the same choice as the Cloud credential step. */}
          <h3 className="field-label">Create it with</h3>
          <CredentialStep values={values} set={set} />
          <div className="row">
            <button
              type="button"
              className="btn primary"
              disabled={busy || !values.cloudCredentialId || !(tb.bucket || proposed)}
              onClick={createOne}
            >
              {busy && <Spinner />} Create the state bucket
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
      {created && (
        <Notice kind="ok" title="State bucket created">
          {created}
        </Notice>
      )}
      <ErrorNotice error={error} what="Creating the state bucket" />
    </div>
  )
}

function CredentialStep({
  values,
  set,
  serverError,
}: {
  values: WizardValues
  set: (p: Partial<WizardValues>) => void
  serverError?: string
}) {
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
