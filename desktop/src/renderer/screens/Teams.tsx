// Teams: the teams the user is in and their role in each; for an admin every team, with creating,
// renaming and deleting teams and setting members' roles (users by user name, service-account
// clients such as `ies-cli` by client id). Members the identity provider's groups make are the
// provider's and are not listed here (docs/teams.md).
import { useState, type FormEvent } from 'react'
import { useApp } from '../app-context.tsx'
import type { Team, TeamMember, TeamRole } from '../lib/api/types.ts'
import { EmptyState, ErrorNotice, PageHead, SelectField, TextField } from '../components/ui.tsx'
import { ListTable, useChange, useList } from '../components/ListTable.tsx'

const ROLES: { value: TeamRole; label: string }[] = [
  { value: 'viewer', label: 'viewer: reads, downloads' },
  { value: 'operator', label: 'operator: also generates, pushes' },
  { value: 'editor', label: 'editor: also creates, changes, deletes' },
]
const KINDS: { value: TeamMember['kind']; label: string }[] = [
  { value: 'user', label: 'User (user name)' },
  { value: 'client', label: 'Service account (client id)' },
]

export function Teams() {
  const { api, admin, toast } = useApp()
  const { items: teams, error, setError, reload } = useList(() => api.teams(), [api])
  const [newName, setNewName] = useState('')
  const [open, setOpen] = useState<string | null>(null)
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null)

  const act = useChange({ toast, reload, setError })

  const create = (e: FormEvent) => {
    e.preventDefault()
    void act(() => api.createTeam(newName), `Created team ${newName}`).then(() => setNewName(''))
  }

  return (
    <>
      <PageHead
        title="Teams"
        subtitle="A team's environments and cloud credentials are shared with its members: viewers read, operators also generate and push, editors also change."
      />
      <div className="card">
        <ErrorNotice error={error} what="Teams" />
        {admin && (
          <form className="toolbar" onSubmit={create} aria-label="New team">
            <TextField label="New team name" value={newName} onChange={setNewName} help="Lowercase letters, digits and hyphens." />
            <button type="submit" className="btn primary" disabled={!newName}>
              Create team
            </button>
          </form>
        )}
        <ListTable
          label="Teams"
          loading="Loading teams"
          items={teams}
          error={error}
          empty={
            <EmptyState title="No teams">
              {admin
                ? 'Create one above, then add members.'
                : 'An admin adds you to teams, or your identity provider does through your groups.'}
            </EmptyState>
          }
          columns={['Team', 'Your role']}
          actions="Actions"
          row={(t) => (
            <tr key={t.id} data-team={t.name}>
              <td>
                <strong>{t.name}</strong>
              </td>
              <td>{t.role ?? <span className="muted">not a member</span>}</td>
              <td className="row">
                <button type="button" className="btn small" onClick={() => setOpen(open === t.id ? null : t.id)}>
                  {open === t.id ? 'Hide members' : 'Members'}
                </button>
                {admin && (
                  <>
                    {renaming?.id === t.id ? (
                      <form
                        className="row"
                        onSubmit={(e) => {
                          e.preventDefault()
                          void act(() => api.renameTeam(t.id, renaming.name), `Renamed to ${renaming.name}`).then(() => setRenaming(null))
                        }}
                      >
                        <TextField
                          label={`New name of ${t.name}`}
                          value={renaming.name}
                          onChange={(name) => setRenaming({ id: t.id, name })}
                        />
                        <button type="submit" className="btn small primary" disabled={!renaming.name || renaming.name === t.name}>
                          Save
                        </button>
                        <button type="button" className="btn small" onClick={() => setRenaming(null)}>
                          Cancel
                        </button>
                      </form>
                    ) : (
                      <button type="button" className="btn small" onClick={() => setRenaming({ id: t.id, name: t.name })}>
                        Rename
                      </button>
                    )}
                    <button
                      type="button"
                      className="btn small danger"
                      onClick={() => void act(() => api.deleteTeam(t.id), `Deleted team ${t.name}`)}
                    >
                      Delete
                    </button>
                  </>
                )}
              </td>
            </tr>
          )}
        />
      </div>
      {open && teams?.some((t) => t.id === open) && <Members key={open} team={teams.find((t) => t.id === open)!} />}
    </>
  )
}

/** A team's members; an admin adds members, changes roles and removes members. */
function Members({ team }: { team: Team }) {
  const { api, admin, toast } = useApp()
  const { items: members, error, setError, reload } = useList(() => api.teamMembers(team.id), [api, team.id])
  const [draft, setDraft] = useState<TeamMember>({ kind: 'user', name: '', role: 'viewer' })

  const change = useChange({ toast, reload, setError })

  const add = (e: FormEvent) => {
    e.preventDefault()
    void change(() => api.setTeamMember(team.id, draft), `${draft.name} is ${draft.role} of ${team.name}`).then(() =>
      setDraft((d) => ({ ...d, name: '' })),
    )
  }

  return (
    <div className="card" aria-label={`Members of ${team.name}`} role="region">
      <h2>Members of {team.name}</h2>
      <ErrorNotice error={error} what="Members" />
      <ListTable
        label={`Members of ${team.name}`}
        loading="Loading members"
        items={members}
        error={error}
        empty="No members yet"
        columns={['Member', 'Kind', 'Role']}
        actions={admin ? 'Actions' : undefined}
        row={(m) => (
          <tr key={`${m.kind}:${m.name}`} data-member={m.name}>
            <td>
              <strong>{m.name}</strong>
            </td>
            <td>{m.kind === 'client' ? 'service account' : 'user'}</td>
            <td>
              {admin ? (
                <SelectField
                  label={`Role of ${m.name}`}
                  value={m.role}
                  options={ROLES}
                  onChange={(role) => void change(() => api.setTeamMember(team.id, { ...m, role }), `${m.name} is ${role}`)}
                />
              ) : (
                m.role
              )}
            </td>
            {admin && (
              <td>
                <button
                  type="button"
                  className="btn small danger"
                  onClick={() => void change(() => api.removeTeamMember(team.id, m), `Removed ${m.name}`)}
                >
                  Remove
                </button>
              </td>
            )}
          </tr>
        )}
      />
      {admin && (
        <form className="toolbar" onSubmit={add} aria-label={`Add a member to ${team.name}`}>
          <SelectField label="Kind" value={draft.kind} options={KINDS} onChange={(kind) => setDraft((d) => ({ ...d, kind }))} />
          <TextField label="Name" value={draft.name} onChange={(name) => setDraft((d) => ({ ...d, name }))} />
          <SelectField label="Role" value={draft.role} options={ROLES} onChange={(role) => setDraft((d) => ({ ...d, role }))} />
          <button type="submit" className="btn primary" disabled={!draft.name}>
            Add member
          </button>
        </form>
      )}
    </div>
  )
}
