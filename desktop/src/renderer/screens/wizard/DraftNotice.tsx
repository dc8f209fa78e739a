// A draft reopened: when it was saved, what changed in the catalog since, the secrets to enter again
// (drafts never keep them), and the way to discard it.
import { Notice, formatDate } from '../../components/ui.tsx'
import { describeChange } from '../../lib/wizard/draft.ts'
import type { DraftInfo } from './wizard-state.ts'

export function DraftNotice({ draftInfo, onDiscard }: { draftInfo: DraftInfo; onDiscard: () => void }) {
  return (
    <Notice
      kind={draftInfo.changes.some((c) => c.kind.endsWith('vanished') || c.kind === 'field-changed') ? 'warn' : 'info'}
      title={`Draft restored (saved ${formatDate(draftInfo.savedAt)})`}
      testId="draft-notice"
    >
      {draftInfo.changes.length > 0 ? (
        <>
          The catalog changed since this draft was saved:
          <ul>
            {draftInfo.changes.map((c, i) => (
              <li key={i}>{describeChange(c)}</li>
            ))}
          </ul>
        </>
      ) : (
        'You are continuing where you left off.'
      )}{' '}
      {draftInfo.leftOut.length > 0 && (
        <>Drafts never keep secrets: enter the {draftInfo.leftOut.join(' and ')} again (step Git repository). </>
      )}
      <button type="button" className="btn link" onClick={onDiscard}>
        Discard the draft
      </button>
    </Notice>
  )
}
