// One environment: its configuration, generate (format and options, progress, processor findings,
// download), push (progress, the pushed commit), export (JSON or YAML, assembled here without
// credential fields), edit and delete with confirmation.
import { useEffect, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { href, navigate } from '../router.ts'
import { useJob } from '../job-watch.ts'
import { saveBlob } from '../download.ts'
import { exportConfiguration, exportFileName, type ExportFormat } from '../lib/environments/export-config.ts'
import {
  archiveFilename,
  GENERATE_FORMATS,
  type CloudCredential,
  type Environment,
  type GenerateFormat,
  type Job,
} from '../lib/api/types.ts'
import { ConfirmDialog, ErrorNotice, PageHead, PROVIDER_LABELS, SelectField, Spinner, Toggle, formatDate } from '../components/ui.tsx'
import { JobProgress } from '../components/JobProgress.tsx'
import { enabledServices } from '../lib/environments/config-summary.ts'
import { differsFromForm, FORMAT_LABELS, generationSummary, optionEffects, type OptionKey } from '../lib/jobs/generate-options.ts'
import { PushPanel } from './PushPanel.tsx'
import { JobHistory } from '../components/JobHistory.tsx'
import { GenerationFacts } from '../components/GenerationFacts.tsx'
import { EnvironmentDiagram } from '../components/EnvironmentDiagram.tsx'
import { EnvironmentSubtitle, EnvironmentTabs } from '../components/EnvironmentTabs.tsx'
import { StrandedNotice } from '../components/StrandedNotice.tsx'
import { BasicFields, DeliveryFields, deployKeyNote, ServiceFields } from '../components/ConfigurationFields.tsx'
import { LastDriftCheck } from '../components/LastDriftCheck.tsx'
import { DriftCheckNow } from '../components/DriftCheckNow.tsx'
import { mayDo } from '../lib/environments/access.ts'

export function EnvironmentDetail({ id }: { id: string }) {
  const { api, toast, takeEnvironment, keptCatalog } = useApp()
  const [env, setEnv] = useState<Environment | null>(() => takeEnvironment(id))
  const [error, setError] = useState<unknown>(null)
  const [confirming, setConfirming] = useState(false)
  const [deleting, setDeleting] = useState(false)
  const [deleteError, setDeleteError] = useState<unknown>(null)
  // Bumped when a generation or push of this page ends: the job list is read again.
  const [jobsChanged, setJobsChanged] = useState(0)

  useEffect(() => {
    // The wizard hands over the environment it just saved; otherwise one request.
    if (!env) api.getEnvironment(id).then(setEnv, setError)
  }, [api, id])

  if (error) return <ErrorNotice error={error} what="Loading the environment" />
  if (!env) return <Spinner label="Loading the environment" />

  /** A push or drift check of this page ended: the environment (last push, last drift) and its jobs are read again. */
  function reread() {
    setJobsChanged((n) => n + 1)
    api.getEnvironment(id).then(setEnv, () => {})
  }

  async function remove() {
    setDeleting(true)
    try {
      await api.deleteEnvironment(id)
      toast(`Deleted ${env!.name}`)
      navigate(href.environments())
    } catch (e) {
      setDeleteError(e)
      setConfirming(false)
    } finally {
      setDeleting(false)
    }
  }

  return (
    <>
      <PageHead
        crumbs={<a href={href.environments()}>Environments</a>}
        title={env.name}
        subtitle={<EnvironmentSubtitle env={env} />}
        actions={
          // A viewer or an operator of the environment's team may not change it (the server refuses too).
          mayDo(env.role, 'change') ? (
            <>
              <a className="btn" href={href.editEnvironment(env.id)}>
                Edit
              </a>
              <button type="button" className="btn danger" onClick={() => setConfirming(true)}>
                Delete
              </button>
            </>
          ) : undefined
        }
      />
      <EnvironmentTabs id={env.id} current="overview" />
      <ErrorNotice error={deleteError} what="Deleting" />
      <StrandedNotice env={env} />
      <ConfigurationCards env={env} onChanged={reread} />
      {env.provider === 'aws' && (
        <section className="card" aria-labelledby="diagram-title">
          <h2 id="diagram-title">Diagram</h2>
          <EnvironmentDiagram services={keptCatalog().diagram} values={env.services ?? {}} />
        </section>
      )}
      <GeneratePanel env={env} onFinished={() => setJobsChanged((n) => n + 1)} />
      <PushPanel env={env} onPushed={reread} />
      <JobHistory env={env} refreshKey={jobsChanged} />
      <ExportPanel env={env} />
      {confirming && (
        <ConfirmDialog
          title={`Delete ${env.name}?`}
          confirmLabel="Delete environment"
          danger
          busy={deleting}
          onConfirm={remove}
          onCancel={() => setConfirming(false)}
        >
          <p>The stored configuration is removed. Repositories already generated or pushed are not touched.</p>
        </ConfirmDialog>
      )}
    </>
  )
}

/** The stored configuration and the enabled services, with the catalog's labels; `onChanged` when a drift check ended. */
function ConfigurationCards({ env, onChanged }: { env: Environment; onChanged: () => void }) {
  const { credentials, keptCatalog } = useApp()
  const [credential, setCredential] = useState<CloudCredential | null>(null)
  useEffect(() => {
    // The name of its credential from the session's list (no request per credential).
    const cid = env.cloudCredentialId
    if (cid)
      credentials().then(
        (list) => setCredential(list.find((c) => c.id === cid) ?? null),
        () => setCredential(null),
      )
  }, [credentials, env.cloudCredentialId])
  // The catalog's labels (and option labels) for the stored values, from the catalog at hand: no request.
  const enabled = enabledServices(env.services ?? {}, keptCatalog())
  return (
    <div className="grid-2">
      <div className="card">
        <h2>Configuration</h2>
        <dl className="props">
          <BasicFields globalPrefix={env.globalPrefix} region={env.region} domain={env.domain} />
          <DeliveryFields
            bucket={env.terraformBackend?.bucket}
            git={
              env.gitRepository && {
                ...env.gitRepository,
                deployKey: deployKeyNote({ replacing: false, stored: !!env.gitRepository.hasDeployKey }),
              }
            }
            credential={env.cloudCredentialId ? (credential?.name ?? <span className="mono">{env.cloudCredentialId}</span>) : null}
            driftCheckHours={env.driftCheckHours}
          />
          <LastDriftCheck drift={env.drift}>
            {/* A viewer may not check (the server refuses too): operators and more, as for pushes. */}
            {mayDo(env.role, 'operate') && <DriftCheckNow env={env} onChecked={onChanged} />}
          </LastDriftCheck>
          <dt>Created</dt>
          <dd>{formatDate(env.createdAt)}</dd>
        </dl>
      </div>
      <div className="card">
        <h2>Services</h2>
        {env.provider !== 'aws' ? (
          <p className="muted" data-testid="provider-not-generated">
            IES generates infrastructure for AWS only today; this {PROVIDER_LABELS[env.provider] ?? env.provider} environment is stored
            without services.
          </p>
        ) : enabled.length === 0 ? (
          <p className="muted">No service is enabled. Edit the environment to choose services from the catalog.</p>
        ) : (
          <ServiceFields services={enabled} testId="detail-services" />
        )}
      </div>
    </div>
  )
}

const OPTION_LABELS: Record<OptionKey, string> = {
  includeBackend: 'Include the state backend',
  includeChart: 'Include chart values files',
  includeGitops: 'Include GitOps application definitions',
}

function GeneratePanel({ env, onFinished }: { env: Environment; onFinished: () => void }) {
  const { api } = useApp()
  const [format, setFormat] = useState<GenerateFormat>('terraform')
  const [options, setOptions] = useState({ includeBackend: !!env.terraformBackend?.bucket, includeChart: true, includeGitops: false })
  const [started, setStarted] = useState<Job | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const { job, log, error: pollError } = useJob(api, started)
  const effects = optionEffects(format, options)

  async function start() {
    setBusy(true)
    setError(null)
    try {
      setStarted(await api.generate(env.id, { format, options }))
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  async function download(of: Job) {
    try {
      await saveBlob(archiveFilename(of) ?? `${env.name}-${format}.zip`, await api.download(of.id))
    } catch (e) {
      setError(e)
    }
  }
  const running = job?.status === 'queued' || job?.status === 'running'
  const finished = job?.status === 'succeeded' || job?.status === 'failed'
  useEffect(() => {
    if (finished) onFinished()
  }, [finished, job?.id])
  const summary = job ? generationSummary(job) : null
  return (
    <section className="card" aria-labelledby="generate-title">
      <h2 id="generate-title">Generate</h2>
      <p className="muted">
        Produce the infrastructure-as-code repository from this configuration. The templates' working defaults fill everything you left
        untouched.
      </p>
      <div className="grid-2">
        <SelectField
          label="Format"
          value={format}
          options={GENERATE_FORMATS.map((f) => ({ value: f, label: FORMAT_LABELS[f] }))}
          onChange={setFormat}
        />
        <div className="stack">
          {(Object.keys(OPTION_LABELS) as OptionKey[]).map((k) => (
            <Toggle
              key={k}
              label={OPTION_LABELS[k]}
              checked={effects[k].note ? effects[k].effective : options[k]}
              disabled={!!effects[k].note}
              help={effects[k].note}
              onChange={(v) => setOptions({ ...options, [k]: v })}
            />
          ))}
        </div>
      </div>
      <div className="row gap-top">
        <button type="button" className="btn primary" disabled={busy || running} onClick={start}>
          {(busy || running) && <Spinner />} Generate
        </button>
      </div>
      <ErrorNotice error={error} what="Generation" />
      <ErrorNotice error={pollError} what="Following the job" />
      {job && <JobProgress job={job} log={log} what="Generation" />}
      {job && summary && (
        <div className="generation-result" data-testid="generation-result">
          <p>
            <GenerationFacts summary={summary} />
          </p>
          {differsFromForm(job, format, options) && (
            <p className="muted small" data-testid="archive-differs">
              This archive is the {summary.format} generation above; the form now asks for something else. Generate again for it.
            </p>
          )}
          <button type="button" className="btn" onClick={() => download(job)}>
            Download {summary.filename ?? 'archive'}
          </button>
        </div>
      )}
    </section>
  )
}

function ExportPanel({ env }: { env: Environment }) {
  const [format, setFormat] = useState<ExportFormat>('yaml')
  const text = exportConfiguration(env, format)
  return (
    <section className="card" aria-labelledby="export-title">
      <div className="row">
        <h2 id="export-title" className="flush">
          Export
        </h2>
        <div className="spacer" />
        <SelectField
          label="Export format"
          value={format}
          options={[
            { value: 'yaml', label: 'YAML' },
            { value: 'json', label: 'JSON' },
          ]}
          onChange={setFormat}
        />
        <button
          type="button"
          className="btn"
          onClick={() =>
            saveBlob(
              exportFileName(env.name, format),
              new Blob([text], { type: format === 'json' ? 'application/json' : 'application/yaml' }),
            )
          }
        >
          Download export
        </button>
      </div>
      <p className="muted">Assembled in the app from the stored configuration. Credential references and the deploy key are left out.</p>
      <pre className="code" aria-label="Exported configuration" data-testid="export">
        {text}
      </pre>
    </section>
  )
}
