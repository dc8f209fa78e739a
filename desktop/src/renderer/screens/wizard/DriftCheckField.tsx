// The drift check on a schedule (docs/plans.md, "Drift"), on the Cloud credential step: every this
// many hours (1 to 720), or empty to check only when asked. A scheduled check plans with the state
// bucket, the cloud credential and the Git repository; the field says which of them is still missing.
import { TextField } from '../../components/ui.tsx'
import { driftCheckNeeds } from '../../lib/environments/drift.ts'
import type { OpenWizard } from './wizard-state.ts'

export function DriftCheckField({ wizard }: { wizard: OpenWizard }) {
  const { values, set, touch, clearServerError, fieldError } = wizard
  const needs = driftCheckNeeds({
    bucket: values.backendMode === 'none' ? undefined : values.terraformBackend.bucket,
    gitUrl: values.gitRepository.url,
    credentialId: values.cloudCredentialId,
  })
  return (
    <section className="stack gap-top" aria-labelledby="drift-check-title">
      <h3 id="drift-check-title">Drift check</h3>
      <div className="grid-2">
        <TextField
          label="Check for drift every (hours)"
          name="driftCheckHours"
          value={values.driftCheckHours}
          placeholder="Only when asked"
          onChange={(driftCheckHours) => (set({ driftCheckHours }), touch('driftCheckHours'), clearServerError('driftCheckHours'))}
          help={
            <>
              1 to 720. IES compares the cloud with the Terraform state on this schedule, with the credential above, and records each check
              in the history. Leave empty to check only when asked.
              {values.driftCheckHours.trim() !== '' && needs.length > 0 && (
                <> Scheduled checks are passed over until the environment has {needs.join(', ')}.</>
              )}
            </>
          }
          error={fieldError('driftCheckHours')}
        />
      </div>
    </section>
  )
}
