// What IES reaches outside itself: the Git servers pushes go to (PUSH_*, GIT_*), the cloud
// providers' endpoints that check a credential, and the assistant's model service (AI_*).
import os from 'node:os'
import path from 'node:path'
import { ConfigError, int, list, optional, str, type Env } from './read.ts'

/** POST /api/environments/:id/push. */
export interface PushSettings {
  /** PUSH_ALLOWED_HOSTS: hosts or addresses on loopback/private/link-local networks that pushes may reach. */
  allowedHosts: string[]
  /** GIT_PUSH_USERNAME: the HTTP Basic user name sent with the deploy key as password. */
  username: string
  /** GIT_TIMEOUT_MS: a Git server that sends nothing this long fails the push. */
  gitTimeoutMs: number
  authorName: string
  authorEmail: string
  /** PUSH_CACHE_DIR: where the repositories pushes fetch are kept between pushes (default: in the system's temporary folder). */
  cacheDir: string
}

/** Endpoints used to check cloud credentials (POST /api/cloud-credentials/:id/validate). */
export interface CloudSettings {
  /** AWS_ENDPOINT_URL: the AWS API endpoint (STS); unset means AWS itself. */
  awsEndpointUrl: string | undefined
  /** AZURE_AUTHORITY_HOST: Microsoft Entra token host; the tenant path is appended. */
  azureAuthorityHost: string
  /** GCP_TOKEN_URL: Google's OAuth 2.0 token endpoint. */
  gcpTokenUrl: string
  /** CREDENTIAL_VALIDATE_TIMEOUT_MS: how long one credential check may take. */
  validateTimeoutMs: number
}

/** POST /api/ai/chat: the configuration assistant (plugins/ai/README.md). */
export interface AiSettings {
  /** AI_BASE_URL: an OpenAI-compatible API root (…/v1); unset means the built-in assistant. */
  baseUrl: string | undefined
  /** AI_API_KEY: sent as a Bearer token to the model service only; never logged or returned. */
  apiKey: string | undefined
  /** AI_MODEL: the model name sent with each request; required with AI_BASE_URL. */
  model: string | undefined
  /** AI_TIMEOUT_MS: how long one model request may take. */
  timeoutMs: number
}

/** Pushes: allowed hosts, the Git user and author, timeouts, the repository cache. */
export function readPush(env: Env): PushSettings {
  return {
    allowedHosts: (list(env, 'PUSH_ALLOWED_HOSTS') ?? []).map((h) => h.toLowerCase()),
    username: str(env, 'GIT_PUSH_USERNAME', 'x-access-token'),
    gitTimeoutMs: Math.max(1, int(env, 'GIT_TIMEOUT_MS', 30_000)),
    authorName: str(env, 'GIT_AUTHOR_NAME', 'IES'),
    authorEmail: str(env, 'GIT_AUTHOR_EMAIL', 'ies@localhost'),
    cacheDir: str(env, 'PUSH_CACHE_DIR', path.join(os.tmpdir(), 'ies-push-cache')),
  }
}

/** Where cloud credentials are validated (the providers' endpoints, overridable for tests). */
export function readCloud(env: Env): CloudSettings {
  return {
    awsEndpointUrl: optional(env, 'AWS_ENDPOINT_URL'),
    azureAuthorityHost: str(env, 'AZURE_AUTHORITY_HOST', 'https://login.microsoftonline.com').replace(/\/+$/, ''),
    gcpTokenUrl: str(env, 'GCP_TOKEN_URL', 'https://oauth2.googleapis.com/token'),
    validateTimeoutMs: int(env, 'CREDENTIAL_VALIDATE_TIMEOUT_MS', 10_000),
  }
}

/** The assistant's model service (OpenAI-compatible). */
export function readAi(env: Env): AiSettings {
  return {
    baseUrl: optional(env, 'AI_BASE_URL')?.replace(/\/+$/, ''),
    apiKey: optional(env, 'AI_API_KEY'),
    model: optional(env, 'AI_MODEL'),
    timeoutMs: Math.max(1, int(env, 'AI_TIMEOUT_MS', 30_000)),
  }
}

/** ConfigError for an AI_BASE_URL that is not an http(s) URL, or one without AI_MODEL. */
export function checkAi(settings: AiSettings): void {
  if (settings.baseUrl && !/^https?:\/\/[^/]/.test(settings.baseUrl)) {
    throw new ConfigError('AI_BASE_URL must be an http(s) URL such as https://models.example/v1')
  }
  if (settings.baseUrl && !settings.model) {
    throw new ConfigError('AI_MODEL is required when AI_BASE_URL is set')
  }
}
