// JSON Merge Patch (RFC 7396): the API contract's (api/src/merge-patch.ts), shared with the clients.
export { mergePatch } from '@ies/api/merge-patch'
