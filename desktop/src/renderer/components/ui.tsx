// The renderer's building blocks: every control has a label, help text under it and the error the
// client or the server named for it, or a warning (an organisation rule's: the value is accepted, so
// the control is not marked invalid; the warning describes it).
import { useEffect, useId, useRef, useState, type ReactNode } from 'react'
import { ApiError, rateLimitMessage } from '@ies/api'

/** The ids of a control's error, warning and help under `id`, and its aria-describedby. */
function messageIds(id: string, p: { error?: string | null; warning?: string | null; help?: ReactNode }) {
  const errId = p.error ? `${id}-err` : undefined
  const warnId = p.warning && !p.error ? `${id}-warn` : undefined
  const helpId = p.help ? `${id}-help` : undefined
  return { errId, warnId, helpId, describedBy: [errId, warnId, helpId].filter(Boolean).join(' ') || undefined }
}

/** A warning under a control: said, not an error (no alert, the control stays valid). */
function FieldWarning({ id, warning }: { id: string | undefined; warning?: string | null }) {
  if (!id || !warning) return null
  return (
    <p className="warning" id={id} data-testid="field-warning">
      <span className="warning-icon" aria-hidden="true">
        ⚠
      </span>{' '}
      {warning}
    </p>
  )
}

export function Field(props: {
  label: string
  help?: ReactNode
  error?: string | null
  /** What an organisation rule warns of the value: shown apart from an error, and only without one. */
  warning?: string | null
  /** The exact rule behind the error (a pattern), shown only on request. */
  errorDetail?: string
  required?: boolean
  children: (id: string, describedBy: string | undefined) => ReactNode
}) {
  const id = useId()
  const { errId, warnId, helpId, describedBy } = messageIds(id, props)
  return (
    <div className="field">
      <label htmlFor={id}>
        {props.label}
        {props.required && (
          <span className="required" aria-hidden="true">
            *
          </span>
        )}
      </label>
      {props.children(id, describedBy)}
      {props.error && (
        <p className="error" id={errId} role="alert">
          {props.error}
        </p>
      )}
      <FieldWarning id={warnId} warning={props.warning} />
      {props.error && props.errorDetail && (
        <details className="error-detail">
          <summary>The exact rule</summary>
          <code>{props.errorDetail}</code>
        </details>
      )}
      {props.help && (
        <p className="help" id={helpId}>
          {props.help}
        </p>
      )}
    </div>
  )
}

type InputProps = {
  label: string
  value: string
  onChange: (v: string) => void
  help?: ReactNode
  error?: string | null
  warning?: string | null
  errorDetail?: string
  required?: boolean
  readOnly?: boolean
  type?: string
  placeholder?: string
  name?: string
  autoComplete?: string
}

export function TextField(p: InputProps) {
  return (
    <Field label={p.label} help={p.help} error={p.error} warning={p.warning} errorDetail={p.errorDetail} required={p.required}>
      {(id, describedBy) => (
        <input
          id={id}
          name={p.name}
          className="input"
          type={p.type ?? 'text'}
          value={p.value}
          placeholder={p.placeholder}
          readOnly={p.readOnly}
          aria-readonly={p.readOnly || undefined}
          required={p.required}
          autoComplete={p.autoComplete ?? 'off'}
          aria-invalid={p.error ? true : undefined}
          aria-describedby={describedBy}
          onChange={(e) => p.onChange(e.target.value)}
        />
      )}
    </Field>
  )
}

export function TextArea(p: InputProps) {
  return (
    <Field label={p.label} help={p.help} error={p.error} required={p.required}>
      {(id, describedBy) => (
        <textarea
          id={id}
          name={p.name}
          className="input"
          value={p.value}
          placeholder={p.placeholder}
          aria-invalid={p.error ? true : undefined}
          aria-describedby={describedBy}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => p.onChange(e.target.value)}
        />
      )}
    </Field>
  )
}

export function SelectField<T extends string | number | boolean>(p: {
  label: string
  value: T | null | undefined
  options: { value: T; label: string }[]
  onChange: (v: T) => void
  help?: ReactNode
  error?: string | null
  warning?: string | null
  required?: boolean
  disabled?: boolean
  placeholder?: string
}) {
  const index = p.options.findIndex((o) => o.value === p.value)
  return (
    <Field label={p.label} help={p.help} error={p.error} warning={p.warning} required={p.required}>
      {(id, describedBy) => (
        <select
          id={id}
          className="select"
          value={index < 0 ? '' : String(index)}
          disabled={p.disabled}
          aria-invalid={p.error ? true : undefined}
          aria-describedby={describedBy}
          onChange={(e) => e.target.value !== '' && p.onChange(p.options[Number(e.target.value)].value)}
        >
          {(index < 0 || p.placeholder) && <option value="">{p.placeholder ?? 'Choose…'}</option>}
          {p.options.map((o, i) => (
            <option key={i} value={String(i)}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  )
}

export function Toggle(p: {
  label: string
  checked: boolean
  onChange: (v: boolean) => void
  help?: ReactNode
  /** What the client or the server (an organisation rule's denial) says of the value. */
  error?: string | null
  /** What an organisation rule warns of the value (accepted). */
  warning?: string | null
  disabled?: boolean
  hideLabel?: boolean
}) {
  const id = useId()
  const { errId, warnId, helpId, describedBy } = messageIds(id, p)
  return (
    <div className="field">
      <div className="switch">
        <button
          type="button"
          role="switch"
          id={id}
          aria-checked={p.checked}
          aria-label={p.hideLabel ? p.label : undefined}
          aria-describedby={describedBy}
          aria-invalid={p.error ? true : undefined}
          disabled={p.disabled}
          onClick={() => p.onChange(!p.checked)}
        />
        {!p.hideLabel && <label htmlFor={id}>{p.label}</label>}
      </div>
      {p.error && (
        <p className="error" id={errId} role="alert">
          {p.error}
        </p>
      )}
      <FieldWarning id={warnId} warning={p.warning} />
      {p.help && (
        <p className="help" id={helpId}>
          {p.help}
        </p>
      )}
    </div>
  )
}

export function Notice(p: { kind: 'info' | 'warn' | 'error' | 'ok'; title?: string; children?: ReactNode; testId?: string }) {
  return (
    <div className={`notice ${p.kind}`} role={p.kind === 'error' || p.kind === 'warn' ? 'alert' : 'status'} data-testid={p.testId}>
      {p.title && <strong>{p.title}</strong>}
      {p.children}
    </div>
  )
}

/**
 * Shown while the server refuses requests (429): when the user can try again, counting down, and
 * gone when the time has come. Everything on screen stays as it was.
 */
export function RateLimitBanner({ until, onOver }: { until: Date | null; onOver: () => void }) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!until) return
    setNow(Date.now())
    const timer = setInterval(() => {
      setNow(Date.now())
      if (Date.now() >= until.getTime()) onOver()
    }, 1000)
    return () => clearInterval(timer)
  }, [until])
  if (!until || now >= until.getTime()) return null
  return (
    <div className="rate-limit-banner" role="alert" data-testid="rate-limited">
      <strong>Too many requests.</strong> {rateLimitMessage(until, now)}
    </div>
  )
}

/** An API failure as a notice; a missing route (404 from the router) says the server does not offer it yet. */
export function ErrorNotice({ error, what }: { error: unknown; what: string }) {
  if (!error) return null
  if (error instanceof ApiError && error.isMissingRoute) {
    return (
      <Notice kind="warn" title={`${what} is not available on this server`}>
        The server does not offer this yet ({error.message}). Everything else keeps working.
      </Notice>
    )
  }
  const message = error instanceof Error ? error.message : String(error)
  if (error instanceof ApiError && error.isRateLimited) {
    return (
      <Notice kind="warn" title={`${what} has to wait`}>
        {message}
      </Notice>
    )
  }
  return (
    <Notice kind="error" title={`${what} failed`}>
      {message}
      {error instanceof ApiError && Object.keys(error.fieldErrors).length > 0 && (
        <ul>
          {Object.entries(error.fieldErrors).map(([f, m]) => (
            <li key={f}>
              <code>{f}</code>: {m}
            </li>
          ))}
        </ul>
      )}
    </Notice>
  )
}

export function Badge({ kind, children }: { kind?: string; children: ReactNode }) {
  return <span className={`badge ${kind ?? ''}`}>{children}</span>
}

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return <span className="spinner" role="progressbar" aria-label={label} />
}

export function EmptyState(p: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty">
      <h2>{p.title}</h2>
      {p.children && <p>{p.children}</p>}
      {p.action}
    </div>
  )
}

/** A modal confirmation: focus moves into it, Escape cancels, Tab stays inside. */
export function ConfirmDialog(p: {
  title: string
  children: ReactNode
  confirmLabel: string
  danger?: boolean
  busy?: boolean
  onConfirm: () => void
  onCancel: () => void
}) {
  const ref = useRef<HTMLDivElement>(null)
  const titleId = useId()
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null
    ref.current?.querySelector<HTMLElement>('button[data-cancel]')?.focus()
    return () => before?.focus?.()
  }, [])
  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') p.onCancel()
    if (e.key === 'Tab') {
      const items = [...(ref.current?.querySelectorAll<HTMLElement>('button:not([disabled]), input:not([disabled])') ?? [])]
      const i = items.indexOf(document.activeElement as HTMLElement)
      if (e.shiftKey && i <= 0) {
        e.preventDefault()
        items.at(-1)?.focus()
      } else if (!e.shiftKey && i === items.length - 1) {
        e.preventDefault()
        items[0]?.focus()
      }
    }
  }
  return (
    <div className="backdrop" onKeyDown={onKey}>
      <div className="dialog" role="alertdialog" aria-modal="true" aria-labelledby={titleId} ref={ref}>
        <h2 id={titleId}>{p.title}</h2>
        <div>{p.children}</div>
        <div className="actions">
          <button type="button" className="btn" data-cancel onClick={p.onCancel}>
            Cancel
          </button>
          <button type="button" className={`btn ${p.danger ? 'danger solid' : 'primary'}`} disabled={p.busy} onClick={p.onConfirm}>
            {p.busy && <Spinner />} {p.confirmLabel}
          </button>
        </div>
      </div>
    </div>
  )
}

export function PageHead(p: { title: string; subtitle?: ReactNode; crumbs?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-head">
      <div>
        {p.crumbs && (
          <nav className="crumbs" aria-label="Breadcrumb">
            {p.crumbs}
          </nav>
        )}
        <h1>{p.title}</h1>
        {p.subtitle && <p>{p.subtitle}</p>}
      </div>
      {p.actions && <div className="row">{p.actions}</div>}
    </div>
  )
}

export const formatDate = (iso: string | undefined) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—'

export const PROVIDER_LABELS: Record<string, string> = { aws: 'AWS', azure: 'Azure', gcp: 'Google Cloud', onpremise: 'On-premises' }
