// The assistant through a model service: the prompt, one chat completion, and the reading of its
// answer. The model is asked for a JSON object `{ message, suggestions }`; a plain-text answer is
// kept as the message (no suggestions), a fenced or embedded JSON object is found, and tool calls
// whose arguments hold `suggestions` are read too. The suggestions are checked by the caller.
import { chatCompletion, type ModelMessage, type ModelSettings } from './model-client.ts'
import { systemPrompt, type PromptInput } from './prompt.ts'
import type { AssistantAnswer } from './builtin-assistant.ts'

export interface ModelAssistantInput extends PromptInput {
  messages: Array<{ role: 'user' | 'assistant'; content: string }>
}

function parseObject(text: string): Record<string, unknown> | undefined {
  const candidates = [text.trim()]
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)
  if (fenced) candidates.push(fenced[1].trim())
  const first = text.indexOf('{')
  const last = text.lastIndexOf('}')
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1))
  for (const candidate of candidates) {
    try {
      const value = JSON.parse(candidate)
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>
    } catch {
      // try the next reading
    }
  }
  return undefined
}

/** Reads a model answer into a message and unchecked suggestions. */
export function readModelAnswer(content: string, toolArguments: string[] = []): AssistantAnswer {
  const suggestions: unknown[] = []
  let message = content.trim()
  const parsed = parseObject(content)
  if (parsed && (typeof parsed.message === 'string' || Array.isArray(parsed.suggestions))) {
    message = typeof parsed.message === 'string' ? parsed.message.trim() : ''
    if (Array.isArray(parsed.suggestions)) suggestions.push(...parsed.suggestions)
  }
  for (const args of toolArguments) {
    const call = parseObject(args)
    if (Array.isArray(call?.suggestions)) suggestions.push(...call.suggestions)
    if (!message && typeof call?.message === 'string') message = call.message.trim()
  }
  return { content: message, suggestions: suggestions as AssistantAnswer['suggestions'] }
}

export async function modelAssistant(settings: ModelSettings, input: ModelAssistantInput): Promise<AssistantAnswer> {
  const messages: ModelMessage[] = [{ role: 'system', content: systemPrompt(input) }, ...input.messages]
  const reply = await chatCompletion(settings, messages)
  const answer = readModelAnswer(reply.content, reply.toolArguments)
  // The model never sees the key, but an answer must not carry it in any case.
  const key = settings.apiKey
  if (key) {
    const redact = (text: string) => text.split(key).join('[redacted]')
    answer.content = redact(answer.content)
    for (const s of answer.suggestions) {
      if (s && typeof s === 'object' && typeof s.reason === 'string') s.reason = redact(s.reason)
    }
  }
  if (!answer.content) answer.content = answer.suggestions.length > 0 ? 'Here are my suggestions.' : 'The model gave no answer.'
  return answer
}
