// Teams: the teams the user is in and their role in each; for an admin every team, with creating,
// renaming and deleting teams and setting members' roles (users by user name, service-account
// clients such as `ies-cli` by client id). Members the identity provider's groups make are the
// provider's and are not listed here (docs/teams.md).
import { useEffect, useState, type FormEvent } from 'react'
import { useApp } from '../app-context.tsx'
import type { Team, TeamMember, TeamRole } from '../lib/api/types.ts'
import { EmptyState, ErrorNotice, PageHead, SelectField, Spinner, TextField } from '../components/ui.tsx'

const ROLES: { value: TeamRole; label: string }[] = [
  { value: 'viewer', label: 'viewer: reads, downloads' },
  { value: 'operator', label: 'operator: also generates, pushes' },
  { value: 'editor', label: 'editor: also creates, changes, deletes' },
]
const KINDS: { value: TeamMember['kind']; label: string }[] = [
  { value: 'user', label: 'User (user name)' },
  { value: 'client', label: 'Service account (client id)' },
]

/** Runs a change; then says so and reloads, or shows the server's refusal where the screen shows errors. */
function changing(on: { toast: (message: string) => void; load: () => Promise<unknown>; setError: (e: unknown) => void }) {
  return async (what: () => Promise<unknown>, done: string) => {
    try {
      await what()
      on.setError(null)
      on.toast(done)
      await on.load()
    } catch (e) {
      on.setError(e)
    }
  }
}

export function Teams() {
  const { api, admin, toast } = useApp()
  const [teams, setTeams] = useState<Team[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [newName, setNewName] = useState('')
  const [open, setOpen] = useState<string | null>(null)
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null)

  const load = () => api.teams().then((t) => (setTeams(t), setError(null)), setError)
  useEffect(() => {
    load()
  }, [api])

  const act = changing({ toast, load, setError })

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
        {!teams && !error && <Spinner label="Loading teams" />}
        {teams && teams.length === 0 && (
          <EmptyState title="No teams">
            {admin
              ? 'Create one above, then add members.'
              : 'An admin adds you to teams, or your identity provider does through your groups.'}
          </EmptyState>
        )}
        {teams && teams.length > 0 && (
          <div className="table-wrap">
            <table className="table" aria-label="Teams">
              <thead>
                <tr>
                  <th scope="col">Team</th>
                  <th scope="col">Your role</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {teams.map((t) => (
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
                                void act(() => api.renameTeam(t.id, renaming.name), `Renamed to ${renaming.name}`).then(() =>
                                  setRenaming(null),
                                )
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
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
      {open && teams?.some((t) => t.id === open) && <Members key={open} team={teams.find((t) => t.id === open)!} />}
    </>
  )
}

/** A team's members; an admin adds members, changes roles and removes members. */
function Members({ team }: { team: Team }) {
  const { api, admin, toast } = useApp()
  const [members, setMembers] = useState<TeamMember[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [draft, setDraft] = useState<TeamMember>({ kind: 'user', name: '', role: 'viewer' })

  const load = () => api.teamMembers(team.id).then((m) => (setMembers(m), setError(null)), setError)
  useEffect(() => {
    load()
  }, [api, team.id])

  const change = changing({ toast, load, setError })

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
      {!members && !error && <Spinner label="Loading members" />}
      {members && members.length === 0 && <EmptyState title="No members yet" />}
      {members && members.length > 0 && (
        <div className="table-wrap">
          <table className="table" aria-label={`Members of ${team.name}`}>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Kind</th>
                <th scope="col">Role</th>
                {admin && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
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
              ))}
            </tbody>
          </table>
        </div>
      )}
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
