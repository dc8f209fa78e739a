// A push that stopped on a conflict: which files, and for each hunk what the customer's branch holds,
// what IES generated last time and what it generates now, in plain words.
import { describeConflict, describeHunk, type FileConflict } from '../lib/push/lifecycle.ts'
import { Notice } from './ui.tsx'

export function ConflictView({ conflicts }: { conflicts: FileConflict[] }) {
  return (
    <Notice kind="error" title="Your changes and the new generation overlap" testId="push-conflict">
      <p>{describeConflict(conflicts)}</p>
      {conflicts.map((c) => (
        <section key={c.file} className="conflict-file" aria-label={`Conflict in ${c.file}`}>
          <h3 className="mono">{c.file}</h3>
          {c.hunks.length === 0 && <p>This file was changed on both sides.</p>}
          {c.hunks.map((h, i) => (
            <div key={i} className="conflict-hunk">
              <p>{describeHunk(c.file, h)}</p>
              <div className="grid-3">
                <Side title="In your repository now" text={h.ours} />
                <Side title="What IES generated last time" text={h.base} />
                <Side title="What IES generates now" text={h.theirs} />
              </div>
            </div>
          ))}
        </section>
      ))}
    </Notice>
  )
}

function Side({ title, text }: { title: string; text: string }) {
  return (
    <figure className="conflict-side">
      <figcaption className="small muted">{title}</figcaption>
      {text === '' ? <p className="muted small">(nothing)</p> : <pre className="code">{text}</pre>}
    </figure>
  )
}
