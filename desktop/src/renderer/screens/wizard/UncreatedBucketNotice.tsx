// "Create one for me" while the bucket is not created: said plainly at the State backend step (until
// "Create the state bucket" succeeded) and beside the save/create button.
import { Notice } from '../../components/ui.tsx'
import { uncreatedBucket, type WizardValues } from '../../lib/wizard/values.ts'

export function UncreatedBucketNotice({ values, testId }: { values: WizardValues; testId: string }) {
  const pending = uncreatedBucket(values)
  if (!pending) return null
  return (
    <Notice kind="warn" title="The state bucket does not exist yet" testId={testId}>
      {pending.bucket ? <span className="mono">{pending.bucket}</span> : 'The bucket'} is created only by "Create the state bucket" (step
      State backend); generation and pushes use it only after it is created.{' '}
      {pending.stored
        ? 'Until then the generated code names a bucket Terraform cannot reach.'
        : 'Until then this environment keeps its Terraform state locally.'}
    </Notice>
  )
}
