// A client for an OpenAI-compatible chat completions API (POST <AI_BASE_URL>/chat/completions), as
// managed model services and local model servers offer it. Every failure becomes one AppError,
// 502 AI_UNAVAILABLE, whose message says what happened (unreachable, timeout, status, unreadable)
// and never carries the service's body: some services echo part of the API key in their errors.
// The key travels only in the Authorization header of this request.
import { AppError } from '@ies/server/core/errors'
import type { Config } from '@ies/server/config'

export const AI_UNAVAILABLE = 'AI_UNAVAILABLE'

export const aiUnavailable = (message: string) => new AppError(502, AI_UNAVAILABLE, message)

export interface ModelMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

export interface ModelReply {
  /** The assistant message's text ('' when it only called tools). */
  content: string
  /** The `arguments` strings of any tool calls in the answer. */
  toolArguments: string[]
}

export interface ModelSettings {
  baseUrl: string
  apiKey: string | undefined
  model: string
  timeoutMs: number
}

/** The model settings, or undefined when no model service is configured (built-in assistant). */
export function modelSettings(config: Pick<Config, 'ai'>): ModelSettings | undefined {
  const { baseUrl, apiKey, model, timeoutMs } = config.ai
  return baseUrl && model ? { baseUrl, apiKey, model, timeoutMs } : undefined
}

export async function chatCompletion(settings: ModelSettings, messages: ModelMessage[]): Promise<ModelReply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`
  let response: Response
  try {
    response = await fetch(`${settings.baseUrl}/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: settings.model, messages, temperature: 0.2, stream: false }),
      signal: AbortSignal.timeout(settings.timeoutMs),
      redirect: 'error',
    })
  } catch (err) {
    const name = (err as Error)?.name
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw aiUnavailable(`The model service did not answer within ${settings.timeoutMs} ms`)
    }
    throw aiUnavailable('The model service could not be reached')
  }
  let body: unknown
  try {
    body = await response.json()
  } catch {
    body = undefined
  }
  if (!response.ok) {
    const hint =
      response.status === 401 || response.status === 403
        ? ' (check AI_API_KEY)'
        : response.status === 404
          ? ' (check AI_BASE_URL and AI_MODEL)'
          : ''
    throw aiUnavailable(`The model service answered with status ${response.status}${hint}`)
  }
  const message = (body as { choices?: Array<{ message?: { content?: unknown; tool_calls?: unknown } }> } | undefined)?.choices?.[0]
    ?.message
  if (!message) throw aiUnavailable('The model service sent an answer without a message')
  const toolArguments = Array.isArray(message.tool_calls)
    ? message.tool_calls.flatMap((call) => {
        const args = (call as { function?: { arguments?: unknown } })?.function?.arguments
        return typeof args === 'string' ? [args] : []
      })
    : []
  return { content: typeof message.content === 'string' ? message.content : '', toolArguments }
}
