// Request helpers shared by the environment and cloud-credential tests.
import type { TestApp, TestUser } from '../harness/app.ts'

export const AWS_KEY = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  region: 'eu-west-1',
}

export const DEPLOY_KEY = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
  'QyNTUxOQAAACDeployKeyBodyThatMustNeverBeReturnedOrLogged0000000000000',
  '-----END OPENSSH PRIVATE KEY-----',
].join('\n')

export function api(ctx: TestApp) {
  async function call(user: TestUser, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) {
    const res = await ctx.app.inject({ method, url, headers: ctx.auth(user), ...(payload !== undefined && { payload: payload as object }) })
    const body = res.body ? JSON.parse(res.body) : undefined
    return { status: res.statusCode, body, raw: res.body }
  }
  return {
    call,
    createEnv: (user: TestUser, payload: unknown) => call(user, 'POST', '/api/environments', payload),
    getEnv: (user: TestUser, id: string) => call(user, 'GET', `/api/environments/${id}`),
    putEnv: (user: TestUser, id: string, payload: unknown) => call(user, 'PUT', `/api/environments/${id}`, payload),
    deleteEnv: (user: TestUser, id: string) => call(user, 'DELETE', `/api/environments/${id}`),
    listEnvs: (user: TestUser, query = '') => call(user, 'GET', `/api/environments${query}`),
    createCred: (user: TestUser, payload: unknown) => call(user, 'POST', '/api/cloud-credentials', payload),
    getCred: (user: TestUser, id: string) => call(user, 'GET', `/api/cloud-credentials/${id}`),
    putCred: (user: TestUser, id: string, payload: unknown) => call(user, 'PUT', `/api/cloud-credentials/${id}`, payload),
    deleteCred: (user: TestUser, id: string) => call(user, 'DELETE', `/api/cloud-credentials/${id}`),
    listCreds: (user: TestUser, query = '') => call(user, 'GET', `/api/cloud-credentials${query}`),
  }
}

/** The fields of a 400 body's details. */
export function fieldsOf(body: { error?: { details?: Array<{ field: string }> } }): string[] {
  return (body.error?.details ?? []).map((d) => d.field)
}
