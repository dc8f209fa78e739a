// One row of the credentials table: name (and whether it is the default), provider, when it was
// added, its last check as the server keeps it, and the row's actions.
import type { CloudCredential, CredentialValidation } from '../../lib/api/types.ts'
import { checkOutcome } from '../../lib/credentials/fields.ts'
import { Badge, ErrorNotice, PROVIDER_LABELS, Spinner, formatDate } from '../../components/ui.tsx'

export interface RowActions {
  validate: (c: CloudCredential) => void
  edit: (c: CloudCredential) => void
  makeDefault: (c: CloudCredential) => void
  remove: (c: CloudCredential) => void
}

export function CredentialRow(p: { credential: CloudCredential; checking: boolean; error: unknown; actions: RowActions }) {
  const { credential: c, actions } = p
  return (
    <tr data-credential={c.name}>
      <td>
        <strong>{c.name}</strong> {c.isDefault && <Badge kind="default">default</Badge>}
      </td>
      <td>
        <Badge kind={c.provider}>{PROVIDER_LABELS[c.provider]}</Badge>
      </td>
      <td>{formatDate(c.createdAt)}</td>
      <td aria-live="polite">
        {p.checking && <Spinner label="Checking" />}
        {!p.checking && c.lastValidation && <CheckResult result={c.lastValidation} />}
        <ErrorNotice error={p.error} what="The action" />
      </td>
      <td>
        <div className="row">
          <button type="button" className="btn small" onClick={() => actions.validate(c)}>
            Validate
          </button>
          <button type="button" className="btn small" onClick={() => actions.edit(c)} aria-label={`Edit ${c.name}`}>
            Edit
          </button>
          {!c.isDefault && (
            <button type="button" className="btn small" onClick={() => actions.makeDefault(c)}>
              Set default
            </button>
          )}
          <button type="button" className="btn small danger" onClick={() => actions.remove(c)} aria-label={`Delete ${c.name}`}>
            Delete
          </button>
        </div>
      </td>
    </tr>
  )
}

/** A check's result: valid, invalid, or "could not check" (the provider was unreachable), with its time. */
function CheckResult({ result }: { result: CredentialValidation }) {
  const outcome = checkOutcome(result)
  const badge = { valid: 'valid', invalid: 'invalid', unreachable: 'could not check' }[outcome.state]
  return (
    <span data-testid="validation-result" data-state={outcome.state}>
      <Badge kind={outcome.state === 'unreachable' ? 'pending' : outcome.state}>{badge}</Badge>{' '}
      <span className="small">{outcome.text.replace(/^(Valid|Invalid): ?/, '')}</span>{' '}
      <span className="muted small">checked {formatDate(result.checkedAt)}</span>
      {outcome.detail && (
        <details className="error-detail">
          <summary>What the server saw</summary>
          <code>{outcome.detail}</code>
        </details>
      )}
    </span>
  )
}
