// The wizard's configuration assistant panel (POST /api/ai/chat, plugins/ai/README.md). Self-contained:
// the wizard passes its current draft, a callback that applies one suggestion to the draft, and the
// function that performs the API call. Only the draft members the assistant reads are sent (never a
// deploy key or a credential), and every suggestion is applied by the user, one click each.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react'

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
}

interface Turn extends AssistantMessage {
  suggestions?: AssistantSuggestion[]
}

const DRAFT_MEMBERS = ['name', 'globalPrefix', 'provider', 'region', 'domain', 'services'] as const
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

/** The reply's text with its `backtick` spans as code (no other markup is interpreted). */
function withInlineCode(text: string) {
  return text.split(/`([^`\n]+)`/).map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))
}

const show = (value: SuggestionValue) => (typeof value === 'string' ? `"${value}"` : String(value))
const keyOf = (turn: number, s: AssistantSuggestion) => `${turn}:${s.path}=${JSON.stringify(s.value)}`

const QUICK = ['Check my draft', 'What is missing for a working stack?', 'Which services are there?']

export function AssistantPanel({ draft, onApply, callApi, environmentId, title = 'Assistant', onClose, autoFocus }: AssistantPanelProps) {
  const [turns, setTurns] = useState<Turn[]>([])
  const [input, setInput] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [applied, setApplied] = useState<Set<string>>(() => new Set())
  const inputId = useId()
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

  function apply(turn: number, s: AssistantSuggestion) {
    onApply(s.path, s.value)
    setApplied((prev) => new Set(prev).add(keyOf(turn, s)))
  }

  function submit(event: FormEvent) {
    event.preventDefault()
    void send(input)
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
            <p className="assistant-content">{turn.role === 'assistant' ? withInlineCode(turn.content) : turn.content}</p>
            {turn.suggestions && turn.suggestions.length > 0 && (
              <ul className="assistant-suggestions" aria-label="Suggestions">
                {turn.suggestions.map((s) => {
                  const done = applied.has(keyOf(i, s))
                  return (
                    <li key={keyOf(i, s)}>
                      <div>
                        <code>{s.path}</code> = <code>{show(s.value)}</code>
                        {s.reason && <p className="help">{s.reason}</p>}
                      </div>
                      <button
                        type="button"
                        className="btn small"
                        onClick={() => apply(i, s)}
                        disabled={done}
                        aria-label={`Apply ${s.path} = ${show(s.value)}`}
                      >
                        {done ? 'Applied' : 'Apply'}
                      </button>
                    </li>
                  )
                })}
              </ul>
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
      <div className="assistant-quick">
        {QUICK.map((q) => (
          <button key={q} type="button" className="btn small" onClick={() => void send(q)} disabled={busy}>
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
              void send(input)
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
    </section>
  )
}

export default AssistantPanel
