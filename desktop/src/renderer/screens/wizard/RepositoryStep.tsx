// The wizard's Git repository step: where the generated code is pushed, and the deploy key
// (write-only: kept in the page's memory until sent, never in a draft).
import { TextArea, TextField } from '../../components/ui.tsx'
import type { WizardValues } from '../../lib/wizard/values.ts'
import type { FieldErrors, SetValues } from './wizard-state.ts'

export function RepositoryStep({ values, set, serverErrors }: { values: WizardValues; set: SetValues; serverErrors: FieldErrors }) {
  const repo = values.gitRepository
  return (
    <div className="grid-2">
      <TextField
        label="Repository URL"
        value={repo.url}
        placeholder="https://git.example.com/team/infrastructure.git"
        onChange={(url) => set({ gitRepository: { ...repo, url } })}
        help="HTTPS address of the repository the generated code is pushed to. Optional."
        error={serverErrors['gitRepository.url'] ?? (repo.url && !/^https:\/\//.test(repo.url) ? 'Must start with https://' : null)}
      />
      <TextField
        label="Branch"
        value={repo.branch}
        onChange={(branch) => set({ gitRepository: { ...repo, branch } })}
        error={serverErrors['gitRepository.branch']}
      />
      <div className="span-all">
        <TextArea
          label="Deploy key or access token (write-only)"
          value={repo.deployKey}
          placeholder={
            repo.hasDeployKey ? 'A key is stored. Paste a new one to replace it.' : 'An access token with push rights to this repository'
          }
          onChange={(deployKey) => set({ gitRepository: { ...repo, deployKey } })}
          help="Stored encrypted and never shown again. Pushes go over HTTPS with this token as the password; an SSH private key cannot authenticate them."
          error={serverErrors['gitRepository.deployKey']}
        />
        {repo.hasDeployKey && !repo.deployKey && <p className="help">A deploy key is stored for this environment.</p>}
      </div>
    </div>
  )
}
