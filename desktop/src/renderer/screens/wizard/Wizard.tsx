// The environment wizard (create and edit): basics, services from the catalog, state backend, Git
// repository, cloud credential, review. Drafts are kept locally with the catalog's commit. Its state
// is `useWizard` (wizard-state.ts); each step is its own component.
import { useEffect, useRef, useState } from 'react'
import { useApp } from '../../app-context.tsx'
import { href } from '../../router.ts'
import { WIZARD_STEPS } from '../../lib/wizard/values.ts'
import { ErrorNotice, Notice, PageHead, PROVIDER_LABELS, Spinner } from '../../components/ui.tsx'
import { StrandedNotice } from '../../components/StrandedNotice.tsx'
import { CatalogNotices, CatalogSourceLine } from '../../components/CatalogNotices.tsx'
import { AssistantPanel, type AssistantChatReply } from '../../components/AssistantPanel.tsx'
import { useWizard, type OpenWizard } from './wizard-state.ts'
import { GlobalStep } from './GlobalStep.tsx'
import { ServicesStep } from './ServicesStep.tsx'
import { BackendStep } from './BackendStep.tsx'
import { RepositoryStep } from './RepositoryStep.tsx'
import { CredentialStep } from './CredentialStep.tsx'
import { ReviewStep } from './ReviewStep.tsx'
import { DriftCheckField } from './DriftCheckField.tsx'
import { DraftNotice } from './DraftNotice.tsx'
import { UncreatedBucketNotice } from './UncreatedBucketNotice.tsx'

function WizardHead({ wizard, assistant }: { wizard: OpenWizard; assistant: ReturnType<typeof useAssistantToggle> }) {
  const { original, editing, loaded } = wizard
  return (
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
            ref={assistant.toggleRef}
            aria-expanded={assistant.open}
            aria-controls="wizard-assistant"
            onClick={assistant.toggle}
          >
            Assistant
          </button>
          <a className="btn" href={original ? href.environment(original.id) : href.environments()}>
            Cancel
          </a>
        </>
      }
    />
  )
}

function StepNav({ wizard }: { wizard: OpenWizard }) {
  const { step, setStep, stepHasErrors, stepHasWarnings } = wizard
  // A step with only warnings is not one with errors: its values are accepted.
  const warnedOnly = (i: number) => !stepHasErrors(i) && stepHasWarnings(i)
  return (
    <nav aria-label="Wizard steps">
      <ol className="steps">
        {WIZARD_STEPS.map((label, i) => (
          <li key={label} className={stepHasErrors(i) ? 'has-error' : warnedOnly(i) ? 'has-warning' : i < step ? 'done' : ''}>
            <button type="button" aria-current={i === step ? 'step' : undefined} onClick={() => setStep(i)}>
              <span className="num" aria-hidden="true">
                {i + 1}
              </span>
              {label}
              {stepHasErrors(i) && <span className="visually-hidden"> (has errors)</span>}
              {warnedOnly(i) && <span className="visually-hidden"> (has warnings)</span>}
            </button>
          </li>
        ))}
      </ol>
    </nav>
  )
}

function ServicesOfProvider({ wizard }: { wizard: OpenWizard }) {
  const { values, loaded, set, errors } = wizard
  if (values.provider !== 'aws')
    return (
      <Notice kind="info" title={`No ${PROVIDER_LABELS[values.provider]} services yet`} testId="provider-not-generated">
        IES generates infrastructure for AWS only today. The catalog's services are AWS services, so none is offered for{' '}
        {PROVIDER_LABELS[values.provider]}: this environment is stored, and generating it produces no stack.
      </Notice>
    )
  return (
    <ServicesStep
      catalog={loaded.catalog}
      services={values.services}
      onChange={(services) => set({ services })}
      serverErrors={{ ...errors.knownErrors, ...errors.serviceErrors }}
      warnings={errors.warnings}
    />
  )
}

function CurrentStep({ wizard }: { wizard: OpenWizard }) {
  const { values, set, serverErrors } = wizard
  switch (wizard.step) {
    case 0:
      return <GlobalStep wizard={wizard} />
    case 1:
      return <ServicesOfProvider wizard={wizard} />
    case 2:
      return <BackendStep values={values} set={set} serverErrors={serverErrors} />
    case 3:
      return <RepositoryStep values={values} set={set} serverErrors={serverErrors} />
    case 4:
      return (
        <>
          <CredentialStep values={values} set={set} serverError={serverErrors.cloudCredentialId} />
          <DriftCheckField wizard={wizard} />
        </>
      )
    case 5:
      return <ReviewStep wizard={wizard} />
    default:
      return null
  }
}

function StepFoot({ wizard }: { wizard: OpenWizard }) {
  const { step, setStep, busy, editing, submit } = wizard
  const isLast = step === WIZARD_STEPS.length - 1
  return (
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
  )
}

/** The Assistant button and panel: focus moves into the panel when it opens and back to the button when it closes. */
function useAssistantToggle() {
  const [open, setOpen] = useState(false)
  const toggleRef = useRef<HTMLButtonElement>(null)
  const close = () => {
    setOpen(false)
    toggleRef.current?.focus()
  }
  return { open, toggleRef, close, toggle: () => (open ? close() : setOpen(true)) }
}

export function Wizard({ id }: { id: string | null }) {
  const { api } = useApp()
  const wizard = useWizard(id)
  const assistant = useAssistantToggle()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [wizard.step])

  if (wizard.loadError)
    return <ErrorNotice error={wizard.loadError} what={wizard.editing ? 'Loading the environment' : 'Opening the wizard'} />
  if (!wizard.values || !wizard.loaded) return <Spinner label="Loading the wizard" />
  const open = wizard as OpenWizard
  const { values, step, original, draftInfo, editing } = open
  return (
    <>
      <WizardHead wizard={open} assistant={assistant} />
      <CatalogNotices loaded={open.loaded} />
      {original && <StrandedNotice env={original} inWizard />}
      {draftInfo && <DraftNotice draftInfo={draftInfo} onDiscard={open.discardDraft} />}
      <div className={assistant.open ? 'wizard with-assistant' : 'wizard'}>
        <StepNav wizard={open} />
        <div className="card">
          <h2 tabIndex={-1} ref={heading}>
            {WIZARD_STEPS[step]}
          </h2>
          <CurrentStep wizard={open} />
          {step === WIZARD_STEPS.length - 1 && <UncreatedBucketNotice values={values} testId="review-bucket-not-created" />}
          <ErrorNotice error={open.submitError} what={editing ? 'Saving' : 'Creating the environment'} />
          <StepFoot wizard={open} />
        </div>
        {assistant.open && (
          <div id="wizard-assistant">
            <AssistantPanel
              draft={{ ...values }}
              environmentId={id}
              onApply={open.applySuggestion}
              labelOf={open.labelOf}
              callApi={(request) => api.aiChat<AssistantChatReply>(request)}
              onClose={assistant.close}
              autoFocus
            />
          </div>
        )}
      </div>
    </>
  )
}
