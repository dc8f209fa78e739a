// Approvals: pushes of production environments awaiting a second team member (docs/teams.md,
// "Approvals"). An operator or editor of the team who did not ask approves (the push runs) or
// rejects (nothing is pushed) each; the others see what waits and for whom.
import { useEffect, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { href } from '../router.ts'
import type { Approval } from '@ies/api'
import { EmptyState, ErrorNotice, PageHead, Spinner, TextField } from '../components/ui.tsx'

export function Approvals() {
  const { api, toast } = useApp()
  const [approvals, setApprovals] = useState<Approval[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [reasons, setReasons] = useState<Record<string, string>>({})

  const load = () => api.approvals().then((a) => (setApprovals(a), setError(null)), setError)
  useEffect(() => {
    load()
  }, [api])

  const decide = async (a: Approval, decision: 'approve' | 'reject') => {
    try {
      if (decision === 'approve') await api.approve(a.jobId)
      else await api.reject(a.jobId, reasons[a.jobId] || undefined)
      toast(decision === 'approve' ? `Approved the push of ${a.environment.name}` : `Rejected the push of ${a.environment.name}`)
      await load()
    } catch (e) {
      setError(e)
    }
  }

  return (
    <>
      <PageHead
        title="Approvals"
        subtitle="Pushes of production environments wait here until another operator or editor of the team approves or rejects them."
      />
      <div className="card">
        <ErrorNotice error={error} what="Approvals" />
        {!approvals && !error && <Spinner label="Loading approvals" />}
        {approvals && approvals.length === 0 && <EmptyState title="No pushes awaiting approval" />}
        {approvals && approvals.length > 0 && (
          <div className="table-wrap">
            <table className="table" aria-label="Approvals">
              <thead>
                <tr>
                  <th scope="col">Environment</th>
                  <th scope="col">Team</th>
                  <th scope="col">Requested by</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span className="visually-hidden">Decision</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {approvals.map((a) => (
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
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </>
  )
}
