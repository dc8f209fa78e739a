// The wizard's state: what it opens with (the catalog, the stored environment when editing, a kept
// draft), the values as the user edits them (saved as a draft without secrets), the errors of each
// step (the client's checks, the stored values the catalog refuses, the server's answer), saving,
// and the assistant's suggestions applied to the values.
import { useEffect, useMemo, useState } from 'react'
import { ApiError, type ApiClient } from '@ies/api'
import { catalogPathParts } from '@ies/processor-lib/contract/paths'
import { useApp, type AppContextValue } from '../../app-context.tsx'
import { href, navigate } from '../../router.ts'
import { fillServices, validateField, validateServices } from '../../lib/catalog/prepared-catalog.ts'
import type { LoadedCatalog } from '../../lib/catalog/source.ts'
import { diffDraft, draftKey, loadDraft, saveDraft, type CatalogChange } from '../../lib/wizard/draft.ts'
import { checkBasics, checkDriftCheckHours } from '../../lib/environments/rules.ts'
import { applySuggestion as applyToValues } from '../../lib/wizard/apply-suggestion.ts'
import { strandedErrors } from '../../lib/environments/stranded.ts'
import { usePolicyFindings, type PolicyFindings } from '../../lib/wizard/policy-check.ts'
import type { Environment, Team } from '../../lib/api/types.ts'
import {
  draftValuesOf,
  emptyValues,
  stepOfField,
  toCreateRequest,
  toUpdatePatch,
  valuesFromEnvironment,
  type WizardValues,
} from '../../lib/wizard/values.ts'
import type { SuggestionValue } from '../../components/AssistantPanel.tsx'

export type DraftInfo = { savedAt: string; changes: CatalogChange[]; leftOut: string[] }
export type FieldErrors = Record<string, string>
export type SetValues = (patch: Partial<WizardValues>) => void

const GLOBAL_FIELDS = ['name', 'globalPrefix', 'region', 'domain'] as const

interface Opened {
  loaded: LoadedCatalog
  original: Environment | null
  values: WizardValues
  draftInfo: DraftInfo | null
  step: number | null
}

/** What the wizard opens with: a kept draft's values, else the stored environment's, else the defaults. */
async function openWizard(app: AppContextValue, id: string | null, key: string): Promise<Opened> {
  const loaded = await app.catalog()
  const env = id !== null ? await app.api.getEnvironment(id) : null
  let values = env
    ? valuesFromEnvironment(env)
    : emptyValues({
        provider: app.preferences.defaultProvider,
        globalPrefix: String(loaded.catalog.global.globalPrefix?.default ?? ''),
        region: String(loaded.catalog.global.region?.default ?? ''),
      })
  let draftInfo: DraftInfo | null = null
  let step: number | null = null
  const draft = loadDraft<WizardValues>(localStorage, key)
  if (draft) {
    // A field a draft of an earlier version does not hold keeps the stored (or default) value.
    values = { ...values, ...draftValuesOf(draft.values).values }
    draftInfo = { savedAt: draft.savedAt, changes: diffDraft(draft, loaded.catalog), leftOut: draft.leftOut ?? [] }
    if (typeof draft.step === 'number') step = draft.step
  } else if (env?.problems?.length) {
    // A stranded environment opens where its first refused value is.
    step = stepOfField(env.problems[0].field)
  }
  // Rule 1: the services start empty (or as stored) and are filled in place from the catalog.
  fillServices(values.services, loaded.catalog)
  return { loaded, original: env, values, draftInfo, step }
}

/** The wizard opening (`openWizard`): its catalog, the stored environment, the values being edited, a restored draft, or why it could not open. */
function useOpened(app: AppContextValue, id: string | null, key: string, setStep: (step: number) => void) {
  const [loaded, setLoaded] = useState<LoadedCatalog | null>(null)
  const [original, setOriginal] = useState<Environment | null>(null)
  const [values, setValues] = useState<WizardValues | null>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const [draftInfo, setDraftInfo] = useState<DraftInfo | null>(null)
  useEffect(() => {
    let live = true
    openWizard(app, id, key)
      .then((opened) => {
        if (!live) return
        if (opened.draftInfo) setDraftInfo(opened.draftInfo)
        if (opened.step !== null) setStep(opened.step)
        setLoaded(opened.loaded)
        setOriginal(opened.original)
        setValues(opened.values)
      })
      .catch((e) => live && setLoadError(e))
    return () => {
      live = false
    }
  }, [app.api, id])
  return { loaded, original, values, setValues, loadError, draftInfo }
}

/** The teams the user may create environments in (editor); none: the team field is not shown. */
function useEditorTeams(api: ApiClient): Team[] {
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
  return editorOf
}

/**
 * The client's errors of the basics, the catalog's global fields and the services, the stored values
 * refused, and the organisation's rules' findings (a denial counts as an error; a warning is not one:
 * the value is accepted, so `warnings` are said apart).
 */
function useStepErrors(
  values: WizardValues | null,
  loaded: LoadedCatalog | null,
  original: Environment | null,
  serverErrors: FieldErrors,
  policy: PolicyFindings,
) {
  const basicsErrors = useMemo(() => (values ? checkBasics(values) : {}), [values])
  const catalogGlobalErrors = useMemo(() => {
    const out: FieldErrors = {}
    if (!values || !loaded) return out
    for (const k of GLOBAL_FIELDS) {
      const f = loaded.catalog.global[k]
      const message = f && values[k] !== '' ? validateField(f, values[k]) : null
      if (message) out[k] = message
    }
    return out
  }, [values, loaded])
  const serviceErrors = useMemo(() => (values && loaded ? validateServices(values.services, loaded.catalog) : {}), [values, loaded])
  // The drift check's schedule (the Cloud credential step).
  const scheduleErrors = useMemo(() => {
    const message = values ? checkDriftCheckHours(values.driftCheckHours) : null
    return message ? { driftCheckHours: message } : ({} as FieldErrors)
  }, [values])
  // The stored values the current catalog refuses, while they are still the stored ones; then the server's answer.
  const knownErrors = useMemo(
    () => ({ ...strandedErrors(original, values), ...policy.deny, ...serverErrors }),
    [original, values, serverErrors, policy],
  )
  return { basicsErrors, catalogGlobalErrors, serviceErrors, scheduleErrors, knownErrors, warnings: policy.warn }
}

type StepErrors = ReturnType<typeof useStepErrors>

/**
 * The error a field shows: the client's once the field was touched or the user left the first step,
 * else a refused stored value or the server's answer; its rule's warning when it shows no error;
 * whether a step has errors, or only warnings; and the catalog's pattern behind a basics error in
 * words, as a detail.
 */
function errorsShown(errors: StepErrors, touched: Record<string, boolean>, step: number, loaded: LoadedCatalog | null) {
  const { basicsErrors, catalogGlobalErrors, serviceErrors, scheduleErrors, knownErrors, warnings } = errors
  const fieldError = (field: string) => {
    const client = field in basicsErrors ? basicsErrors[field] : (catalogGlobalErrors[field] ?? scheduleErrors[field])
    return (touched[field] || step > 0 ? client : null) ?? knownErrors[field] ?? null
  }
  const fieldWarning = (field: string) => (fieldError(field) ? null : (warnings[field] ?? null))
  const stepHasErrors = (i: number) =>
    (i === 0 && Object.keys({ ...basicsErrors, ...catalogGlobalErrors }).length > 0) ||
    (i === 1 && Object.keys(serviceErrors).length > 0) ||
    (i === 4 && Object.keys(scheduleErrors).length > 0) ||
    Object.keys(knownErrors).some((f) => stepOfField(f) === i)
  const stepHasWarnings = (i: number) => Object.keys(warnings).some((f) => stepOfField(f) === i)
  const ruleDetail = (k: string) =>
    fieldError(k) && fieldError(k) === catalogGlobalErrors[k] ? loaded?.catalog.global[k]?.rule : undefined
  return { fieldError, fieldWarning, stepHasErrors, stepHasWarnings, ruleDetail }
}

const policyDenied = (e: unknown) => e instanceof ApiError && e.code === 'POLICY_DENIED'

/** The server's field errors of a failed save; a duplicate name (409) belongs at the name field, in words. */
function saveFieldErrors(e: ApiError, editing: boolean, name: string): FieldErrors {
  const fe = e.fieldErrors
  if (e.code === 'CONFLICT' && !editing && !fe.name) fe.name = `You already have an environment named "${name}". Choose another name.`
  return fe
}

/** The catalog's label of a suggestion's path: "EKS · Public API endpoint", a global field's label, or undefined. */
function suggestionLabel(catalog: LoadedCatalog['catalog'], path: string): string | undefined {
  const parts = catalogPathParts(path)
  if (!parts) return undefined
  if (parts.service === undefined) return catalog.global[parts.key]?.label
  const service = catalog.services.find((s) => s.key === parts.service)
  const fieldLabel = parts.key === 'enabled' ? 'Enabled' : service?.fields.find((f) => f.key === parts.key)?.label
  return service && fieldLabel ? `${service.label} · ${fieldLabel}` : undefined
}

/** The wizard of a new environment (`id` null) or of a stored one: everything its steps read and do. */
export function useWizard(id: string | null) {
  const app = useApp()
  const editing = id !== null
  const key = draftKey(app.subject, id)
  const [step, setStep] = useState(0)
  const { loaded, original, values, setValues, loadError, draftInfo } = useOpened(app, id, key, setStep)
  const [submitError, setSubmitError] = useState<unknown>(null)
  // The values a save was refused for: the rules' refusal is said only while they are the ones on screen.
  const [refusedValues, setRefusedValues] = useState<WizardValues | null>(null)
  const [serverErrors, setServerErrors] = useState<FieldErrors>({})
  const [busy, setBusy] = useState(false)
  const [touched, setTouched] = useState<Record<string, boolean>>({})
  const editorOf = useEditorTeams(app.api)

  useEffect(() => {
    if (!values || !loaded) return
    // Never a secret in browser storage: the draft keeps everything but the deploy key.
    const kept = draftValuesOf(values)
    saveDraft(localStorage, key, loaded.catalog, kept.values, { step, leftOut: kept.leftOut })
  }, [values, step, loaded, key])

  const policy = usePolicyFindings(app.api, values)
  const errors = useStepErrors(values, loaded, original, serverErrors, policy)
  const { basicsErrors, catalogGlobalErrors, serviceErrors, scheduleErrors } = errors

  const set: SetValues = (patch) => setValues((v) => ({ ...v!, ...patch }))
  const touch = (field: string) => setTouched((t) => ({ ...t, [field]: true }))
  const clearServerError = (field: string) =>
    setServerErrors((e) => {
      if (!(field in e)) return e
      const { [field]: _gone, ...rest } = e
      return rest
    })
  const { fieldError, fieldWarning, stepHasErrors, stepHasWarnings, ruleDetail } = errorsShown(errors, touched, step, loaded)

  async function submit() {
    const v = values!
    if (Object.keys({ ...basicsErrors, ...catalogGlobalErrors }).length) return setStep(0)
    if (Object.keys(serviceErrors).length) return setStep(1)
    if (Object.keys(scheduleErrors).length) return setStep(4)
    setBusy(true)
    setSubmitError(null)
    setServerErrors({})
    try {
      const saved = editing
        ? await app.api.updateEnvironment(id, toUpdatePatch(v) as never)
        : await app.api.createEnvironment(toCreateRequest(v))
      localStorage.removeItem(key)
      app.rememberEnvironment(saved)
      app.toast(editing ? `Saved ${saved.name}` : `Created ${saved.name}`)
      navigate(href.environment(saved.id))
    } catch (e) {
      setSubmitError(e)
      setRefusedValues(v)
      if (e instanceof ApiError) {
        const fe = saveFieldErrors(e, editing, v.name)
        // A rule's denial is said at its field by the rules' findings for this draft (the same
        // evaluation), which go as soon as the draft changes: kept here it would outlive the fix.
        if (!policyDenied(e)) setServerErrors(fe)
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
   * suggestion in the same click) keeps every one of them. No toast when applied: the panel marks the
   * suggestion Applied, and an "Apply all" would stack one per value over the panel's own controls.
   */
  function applySuggestion(path: string, value: SuggestionValue) {
    const outcome = applyToValues(values!, path, value, editing)
    if ('refused' in outcome) return app.toast(outcome.refused)
    setValues((v) => {
      const next = applyToValues(v!, path, value, editing)
      return 'values' in next ? next.values : v
    })
    if (!path.startsWith('services.')) touch(path)
  }

  function discardDraft() {
    localStorage.removeItem(key)
    location.reload()
  }

  return {
    id,
    editing,
    loaded,
    original,
    values,
    step,
    setStep,
    loadError,
    submitError: policyDenied(submitError) && refusedValues !== values ? null : submitError,
    serverErrors,
    busy,
    draftInfo,
    editorOf,
    errors,
    set,
    touch,
    clearServerError,
    fieldError,
    fieldWarning,
    stepHasErrors,
    stepHasWarnings,
    ruleDetail,
    submit,
    applySuggestion,
    labelOf: (path: string) => suggestionLabel(loaded!.catalog, path),
    discardDraft,
  }
}

export type WizardState = ReturnType<typeof useWizard>

/** The wizard once it has opened: its catalog and values are there. */
export type OpenWizard = WizardState & { loaded: LoadedCatalog; values: WizardValues }
