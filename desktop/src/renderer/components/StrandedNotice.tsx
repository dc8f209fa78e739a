// The values of a stored environment the current templates refuse (a stranded environment): each
// field with the reason, and where to change them.
import { href } from '../router.ts'
import { asSentence, valueAt } from '../lib/environments/stranded.ts'
import type { Environment } from '../lib/api/types.ts'
import { Notice } from './ui.tsx'

export function StrandedNotice(p: { env: Pick<Environment, 'id' | 'problems' | 'services'>; inWizard?: boolean }) {
  const problems = p.env.problems ?? []
  if (problems.length === 0) return null
  const n = problems.length
  return (
    <Notice
      kind="warn"
      title={`The current templates no longer accept ${n === 1 ? 'a stored value' : `${n} stored values`}`}
      testId="stranded"
    >
      <ul>
        {problems.map((x) => (
          <li key={x.field}>
            <code>{x.field}</code>
            {valueAt(p.env, x.field) !== undefined && <> (stored: {JSON.stringify(valueAt(p.env, x.field))})</>}: {asSentence(x.message)}
          </li>
        ))}
      </ul>
      <p>
        {p.inWizard ? 'Each is marked at its field below: choose a value the templates offer, then save. ' : ''}A push applies the
        templates' migrations, which move the values they can; a value they cannot move stops the push until you change it.
        {!p.inWizard && (
          <>
            {' '}
            <a href={href.editEnvironment(p.env.id)}>Change the values</a>
          </>
        )}
      </p>
    </Notice>
  )
}
