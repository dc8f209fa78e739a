// The wizard's configuration assistant panel (POST /api/ai/chat, plugins/ai/README.md). Self-contained:
// the wizard passes its current draft, a callback that applies one suggestion to the draft, and the
// function that performs the API call. Only the draft members the assistant reads are sent (never a
// deploy key or a credential), and every suggestion is applied by the user: one click each, or one
// "Apply all" click for the rest of a turn's suggestions. Each suggestion shows its reason and, when
// the wizard gives `labelOf`, the catalog's label before the raw path.
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react'

export type SuggestionValue = string | number | boolean

export interface AssistantSuggestion {
  /** A catalog path: `name`, `globalPrefix`, `region`, `domain` or `services.<key>.<field>`. */
  path: string
  value: SuggestionValue
  reason: string
}

export interface AssistantMessage {
  role: 'user' | 'assistant'
  content: string
}

export interface AssistantDraft {
  name?: unknown
  globalPrefix?: unknown
  provider?: unknown
  region?: unknown
  domain?: unknown
  labels?: Record<string, string>
  team?: unknown
  services?: Record<string, Record<string, unknown>>
  [other: string]: unknown
}

export interface AssistantChatRequest {
  messages: AssistantMessage[]
  environmentId?: string
  draft?: AssistantDraft
}

export interface AssistantChatReply {
  message: { role: 'assistant'; content: string }
  suggestions: AssistantSuggestion[]
}

export interface AssistantPanelProps {
  /** The wizard's current values. */
  draft: AssistantDraft
  /** Applies one suggestion: set `value` at `path` in the draft. */
  onApply: (path: string, value: SuggestionValue) => void
  /**
   * Performs POST /api/ai/chat with this body; resolves with the reply's `data` (an envelope
   * `{ data }` is unwrapped too) and rejects with an Error whose message is shown.
   */
  callApi: (request: AssistantChatRequest) => Promise<AssistantChatReply | { data: AssistantChatReply }>
  /** The stored environment being edited, if any. */
  environmentId?: string | null
  title?: string
  /** When given, the panel has a Close button and Escape inside it closes it. */
  onClose?: () => void
  /** Focus the question box when the panel appears (it was opened by the user). */
  autoFocus?: boolean
  /** The catalog's label of a path (`services.eks.endpointPublicAccess` -> "EKS · Public API endpoint"), if it has one. */
  labelOf?: (path: string) => string | undefined
}

interface Turn extends AssistantMessage {
  suggestions?: AssistantSuggestion[]
}

// Labels and team: which of the organisation's rules the assistant's suggestions must respect.
const DRAFT_MEMBERS = ['name', 'globalPrefix', 'provider', 'region', 'domain', 'labels', 'team', 'services'] as const
const MAX_HISTORY = 40

/** Only what the assistant reads; everything else (deploy keys, credentials, chart values) stays here. */
export function assistantDraft(draft: AssistantDraft): AssistantDraft {
  const out: AssistantDraft = {}
  for (const key of DRAFT_MEMBERS) if (draft[key] !== undefined) (out as Record<string, unknown>)[key] = structuredClone(draft[key])
  return out
}

function unwrap(reply: AssistantChatReply | { data: AssistantChatReply }): AssistantChatReply {
  return 'data' in reply ? reply.data : reply
}

/** A line of the reply with its `backtick` spans as code (no other inline markup is interpreted). */
function withInlineCode(text: string) {
  return text.split(/`([^`\n]+)`/).map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))
}

/** A line's text; a leading `**heading**` is strong. */
function lineOf(text: string): ReactNode {
  const m = /^\*\*([^*\n]+)\*\*(.*)$/.exec(text)
  return m ? (
    <>
      <strong>{withInlineCode(m[1])}</strong>
      {withInlineCode(m[2])}
    </>
  ) : (
    withInlineCode(text)
  )
}

/**
 * The reply, line by line: runs of lines starting with "- " are a list, other non-empty lines are
 * paragraphs. Only React elements are built (never HTML from the reply).
 */
export function assistantContent(text: string): ReactNode[] {
  const blocks: ReactNode[] = []
  let items: string[] = []
  const flush = (at: number) => {
    if (items.length)
      blocks.push(
        <ul key={`ul${at}`}>
          {items.map((item, j) => (
            <li key={j}>{lineOf(item)}</li>
          ))}
        </ul>,
      )
    items = []
  }
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('- ')) return void items.push(line.slice(2))
    flush(i)
    if (line.trim() !== '') blocks.push(<p key={i}>{lineOf(line)}</p>)
  })
  flush(-1)
  return blocks
}

/** The value as in the aria-label: strings quoted, the rest as JSON would write it. */
const show = (value: SuggestionValue) => (typeof value === 'string' ? `"${value}"` : String(value))
/** The value as the user reads it: a toggle is on or off. */
const showVisible = (value: SuggestionValue) => (typeof value === 'boolean' ? (value ? 'on' : 'off') : show(value))
const keyOf = (turn: number, s: AssistantSuggestion) => `${turn}:${s.path}=${JSON.stringify(s.value)}`

const QUICK = ['Check my draft', 'What is missing for a working stack?', 'Which services are there?']

export function AssistantPanel({
  draft,
  onApply,
  callApi,
  environmentId,
  title = 'Assistant',
  onClose,
  autoFocus,
  labelOf,
}: AssistantPanelProps) {
  const [turns, setTurns] = useState<Turn[]>([])
  const [input, setInput] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [applied, setApplied] = useState<Set<string>>(() => new Set())
  const logRef = useRef<HTMLDivElement>(null)
  const inputRef = useRef<HTMLTextAreaElement>(null)

  useEffect(() => {
    if (autoFocus) inputRef.current?.focus()
  }, [autoFocus])

  useEffect(() => {
    logRef.current?.scrollTo?.({ top: logRef.current.scrollHeight })
  }, [turns])

  async function send(text: string) {
    const content = text.trim()
    if (!content || busy) return
    const history: Turn[] = [...turns, { role: 'user', content }]
    setTurns(history)
    setInput('')
    setBusy(true)
    setError(null)
    try {
      const request: AssistantChatRequest = {
        messages: history.slice(-MAX_HISTORY).map(({ role, content: c }) => ({ role, content: c })),
        draft: assistantDraft(draft),
      }
      if (environmentId) request.environmentId = environmentId
      const reply = unwrap(await callApi(request))
      setTurns([...history, { role: 'assistant', content: reply.message.content, suggestions: reply.suggestions ?? [] }])
    } catch (err) {
      setError(err instanceof Error && err.message ? err.message : 'The assistant could not answer.')
    } finally {
      setBusy(false)
    }
  }

  /** Applies the suggestions given (one, or the rest of a turn's), in the order the assistant gave them. */
  function apply(turn: number, list: AssistantSuggestion[]) {
    for (const s of list) onApply(s.path, s.value)
    setApplied((prev) => {
      const next = new Set(prev)
      for (const s of list) next.add(keyOf(turn, s))
      return next
    })
  }

  return (
    <section
      className="assistant-panel"
      aria-label={title}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && onClose) {
          e.stopPropagation()
          onClose()
        }
      }}
    >
      <div className="assistant-head">
        <h2>{title}</h2>
        {onClose && (
          <button type="button" className="btn small" onClick={onClose}>
            Close
          </button>
        )}
      </div>
      <div className="assistant-log" ref={logRef} role="log" aria-live="polite" aria-busy={busy} tabIndex={0} aria-label="Conversation">
        {turns.length === 0 && (
          <p className="help">
            Ask about a service or a field, or let the assistant check your draft. Suggestions change nothing until you apply them.
          </p>
        )}
        {turns.map((turn, i) => (
          <div key={i} className={`assistant-turn assistant-${turn.role}`}>
            <p className="assistant-role">{turn.role === 'user' ? 'You' : 'Assistant'}</p>
            {turn.role === 'assistant' ? (
              <div className="assistant-content">{assistantContent(turn.content)}</div>
            ) : (
              <p className="assistant-content assistant-plain">{turn.content}</p>
            )}
            {turn.suggestions && turn.suggestions.length > 0 && (
              <SuggestionList
                turn={i}
                suggestions={turn.suggestions}
                applied={applied}
                labelOf={labelOf}
                onApply={(list) => apply(i, list)}
              />
            )}
          </div>
        ))}
        {busy && (
          <p className="help">
            <span className="spinner" aria-hidden="true" /> Thinking…
          </p>
        )}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <AskForm input={input} setInput={setInput} busy={busy} inputRef={inputRef} onSend={(text) => void send(text)} />
    </section>
  )
}

/** A turn's suggestions, each with its Apply button, and one button for the rest when there are several. */
function SuggestionList(p: {
  turn: number
  suggestions: AssistantSuggestion[]
  applied: Set<string>
  labelOf?: (path: string) => string | undefined
  onApply: (list: AssistantSuggestion[]) => void
}) {
  const pending = p.suggestions.filter((s) => !p.applied.has(keyOf(p.turn, s)))
  return (
    <>
      <ul className="assistant-suggestions" aria-label="Suggestions">
        {p.suggestions.map((s) => {
          const done = p.applied.has(keyOf(p.turn, s))
          const label = p.labelOf?.(s.path)
          return (
            <li key={keyOf(p.turn, s)}>
              <div className="assistant-suggestion">
                {label ? (
                  <>
                    <span className="assistant-label">{label}</span> <code className="assistant-path">{s.path}</code>
                  </>
                ) : (
                  <code>{s.path}</code>
                )}{' '}
                = <code>{showVisible(s.value)}</code>
                {s.reason && <p className="help">{s.reason}</p>}
              </div>
              <button
                type="button"
                className="btn small"
                onClick={() => p.onApply([s])}
                disabled={done}
                aria-label={`Apply ${s.path} = ${show(s.value)}`}
              >
                {done ? 'Applied' : 'Apply'}
              </button>
            </li>
          )
        })}
      </ul>
      {p.suggestions.length > 1 && (
        <div className="assistant-apply-all">
          <button type="button" className="btn small" disabled={pending.length === 0} onClick={() => p.onApply(pending)}>
            {pending.length === 0 ? 'All applied' : `Apply all ${pending.length} suggestion${pending.length === 1 ? '' : 's'}`}
          </button>
        </div>
      )}
    </>
  )
}

/** The quick questions and the question box: Enter sends, Shift+Enter adds a line. */
function AskForm(p: {
  input: string
  setInput: (text: string) => void
  busy: boolean
  inputRef: RefObject<HTMLTextAreaElement | null>
  onSend: (text: string) => void
}) {
  const { input, setInput, busy, inputRef } = p
  const inputId = useId()
  function submit(event: FormEvent) {
    event.preventDefault()
    p.onSend(input)
  }
  return (
    <>
      <div className="assistant-quick">
        {QUICK.map((q) => (
          <button key={q} type="button" className="btn small" onClick={() => p.onSend(q)} disabled={busy}>
            {q}
          </button>
        ))}
      </div>
      <form className="field" onSubmit={submit}>
        <label htmlFor={inputId}>Ask the assistant</label>
        <textarea
          id={inputId}
          ref={inputRef}
          className="input"
          value={input}
          maxLength={8000}
          rows={2}
          placeholder="e.g. enable eks"
          aria-describedby={`${inputId}-help`}
          onChange={(e) => setInput(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault()
              p.onSend(input)
            }
          }}
        />
        <div className="row">
          <p className="help" id={`${inputId}-help`}>
            Enter sends, Shift+Enter adds a line.
          </p>
          <div className="spacer" />
          <button type="submit" className="btn primary small" disabled={busy || input.trim() === ''}>
            Send
          </button>
        </div>
      </form>
    </>
  )
}

export default AssistantPanel
