// Approvals: pushes of production environments awaiting a second team member (docs/teams.md,
// "Approvals"). An operator or editor of the team who did not ask approves (the push runs) or
// rejects (nothing is pushed) each; the others see what waits and for whom.
import { useState } from 'react'
import { useApp } from '../app-context.tsx'
import { href } from '../router.ts'
import type { Approval } from '@ies/api'
import { ErrorNotice, PageHead, TextField } from '../components/ui.tsx'
import { ListTable, useChange, useList } from '../components/ListTable.tsx'

export function Approvals() {
  const { api, toast } = useApp()
  const { items: approvals, error, setError, reload } = useList(() => api.approvals(), [api])
  const [reasons, setReasons] = useState<Record<string, string>>({})
  const act = useChange({ toast, reload, setError })

  const decide = (a: Approval, decision: 'approve' | 'reject') =>
    decision === 'approve'
      ? act(() => api.approve(a.jobId), `Approved the push of ${a.environment.name}`)
      : act(() => api.reject(a.jobId, reasons[a.jobId] || undefined), `Rejected the push of ${a.environment.name}`)

  return (
    <>
      <PageHead
        title="Approvals"
        subtitle="Pushes of production environments wait here until another operator or editor of the team approves or rejects them."
      />
      <div className="card">
        <ErrorNotice error={error} what="Approvals" />
        <ListTable
          label="Approvals"
          loading="Loading approvals"
          items={approvals}
          error={error}
          empty="No pushes awaiting approval"
          columns={['Environment', 'Team', 'Requested by', 'Expires']}
          actions="Decision"
          row={(a) => (
            <tr key={a.jobId} data-job={a.jobId}>
              <td>
                <a href={href.environment(a.environment.id)}>{a.environment.name}</a>
              </td>
              <td>{a.team.name}</td>
              <td>{a.requestedBy.username}</td>
              <td>{new Date(a.expiresAt).toLocaleString()}</td>
              <td className="row">
                {a.canDecide ? (
                  <>
                    <button type="button" className="btn small primary" onClick={() => void decide(a, 'approve')}>
                      Approve
                    </button>
                    <TextField
                      label={`Reason to reject the push of ${a.environment.name}`}
                      value={reasons[a.jobId] ?? ''}
                      onChange={(reason) => setReasons({ ...reasons, [a.jobId]: reason })}
                    />
                    <button type="button" className="btn small danger" onClick={() => void decide(a, 'reject')}>
                      Reject
                    </button>
                  </>
                ) : (
                  <span className="muted">Another operator of the team decides</span>
                )}
              </td>
            </tr>
          )}
        />
      </div>
    </>
  )
}
