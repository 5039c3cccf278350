/**
 * Signing and opening suspended states (package README, "Suspension and resume", "Security
 * model"): HMAC-SHA256 from `node:crypto` over the payload's canonical JSON, key ids for
 * rotation, an expiry, and a structural check of every field (errors name the JSON pointer).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto'
import { typeLabel } from '../errors'
import { canonicalJson } from './canonical'
import { MemoryResumeLedger, type ResumeLedger } from './ledger'
import { STATE_FORMAT, STATE_VERSION, SuspensionError, type StateCall, type StatePayload, type SuspendedState } from './types'

/** Default lifetime of a state: 24 hours, in ms. */
export const DEFAULT_STATE_TTL_MS = 24 * 60 * 60 * 1000
/** The shortest secret accepted, in bytes (HMAC-SHA256's block of security). */
export const MIN_KEY_BYTES = 32

/** Options of {@link createSuspension}. */
export interface SuspensionOptions {
  /** Secrets by key id (string secrets are UTF-8; each at least {@link MIN_KEY_BYTES} bytes). States signed with any of them verify. */
  readonly keys: Readonly<Record<string, string | Uint8Array>>
  /** The key id new states are signed with (rotation: add the new key, sign with it, drop the old once its states expired). */
  readonly signWith: string
  /** How long a state may be resumed, in ms (default {@link DEFAULT_STATE_TTL_MS}). */
  readonly ttlMs?: number
  /** The resume ledger (default: a {@link MemoryResumeLedger} of this suspension; one process only). */
  readonly ledger?: ResumeLedger
  /** The clock, ms since the epoch (default `Date.now`). */
  readonly now?: () => number
}

/**
 * A deployment's suspension settings: pass it to `ctx.tools.executeSuspendable` and
 * `ctx.tools.resume`. Created by {@link createSuspension}.
 */
export interface Suspension {
  /** The resume ledger states are consumed and calls claimed in. */
  readonly ledger: ResumeLedger
  /** The lifetime of a new state, in ms. */
  readonly ttlMs: number
  /** The clock, ms since the epoch. */
  now(): number
  /** Signs `payload` with the `signWith` key. */
  sign(payload: StatePayload): SuspendedState
  /**
   * Verifies `state` (an object or its JSON text) and returns its payload.
   *
   * @throws SuspensionError `STATE_MALFORMED` (with the field's pointer), `STATE_VERSION_UNSUPPORTED`,
   *   `STATE_UNKNOWN_KEY`, `STATE_SIGNATURE_INVALID`, `STATE_EXPIRED`, `STATE_FOREIGN` (`scope` differs).
   */
  open(state: unknown, scope: string): StatePayload
  /** A fresh id (a v4 UUID) for a suspension or a state. */
  newId(): string
}

/**
 * Creates the {@link Suspension} settings.
 *
 * @throws RangeError naming the field: no keys, a key shorter than {@link MIN_KEY_BYTES} bytes,
 *   `signWith` not among the keys, `ttlMs` not a positive integer.
 */
export function createSuspension(options: SuspensionOptions): Suspension {
  const keys = new Map<string, Buffer>()
  if (options === null || typeof options !== 'object' || options.keys === null || typeof options.keys !== 'object') throw new RangeError('createSuspension: keys must be an object of key id → secret')
  for (const [kid, secret] of Object.entries(options.keys)) {
    const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret instanceof Uint8Array ? Buffer.from(secret) : undefined
    if (bytes === undefined) throw new RangeError(`createSuspension: keys/${kid} must be a string or Uint8Array, got ${typeLabel(secret)}`)
    if (bytes.length < MIN_KEY_BYTES) throw new RangeError(`createSuspension: keys/${kid} must be at least ${MIN_KEY_BYTES} bytes, got ${bytes.length}`)
    keys.set(kid, bytes)
  }
  if (!keys.has(options.signWith)) throw new RangeError(`createSuspension: signWith must name one of the keys (${[...keys.keys()].join(', ') || 'none given'}), got ${typeLabel(options.signWith)}`)
  const ttlMs = options.ttlMs ?? DEFAULT_STATE_TTL_MS
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new RangeError(`createSuspension: ttlMs must be a positive integer (ms), got ${typeLabel(ttlMs)}`)
  const now = options.now ?? Date.now
  const mac = (key: Buffer, payload: unknown): Buffer => createHmac('sha256', key).update(canonicalJson(payload)).digest()
  return Object.freeze({
    ledger: options.ledger ?? new MemoryResumeLedger(now),
    ttlMs,
    now: () => now(),
    newId: () => randomUUID(),
    sign(payload: StatePayload): SuspendedState {
      const sig = mac(keys.get(options.signWith)!, payload).toString('base64url')
      return { format: STATE_FORMAT, version: STATE_VERSION, kid: options.signWith, sig, payload }
    },
    open(state: unknown, scope: string): StatePayload {
      const envelope = parseEnvelope(state)
      const key = keys.get(envelope.kid)
      if (key === undefined) throw new SuspensionError('STATE_UNKNOWN_KEY', '/kid', `the state was signed with key "${envelope.kid}", which this deployment does not have`)
      const given = Buffer.from(envelope.sig, 'base64url')
      const expected = mac(key, envelope.payload)
      // A signature is read strictly: base64url text that decodes to the same bytes in another spelling (unused low bits) is refused too.
      if (given.length !== expected.length || given.toString('base64url') !== envelope.sig || !timingSafeEqual(given, expected)) throw new SuspensionError('STATE_SIGNATURE_INVALID', '/sig', 'the signature does not match the state (changed, or not signed by this deployment)')
      const payload = checkPayload(envelope.payload)
      if (now() > payload.expiresAt) throw new SuspensionError('STATE_EXPIRED', '/payload/expiresAt', `the state expired at ${new Date(payload.expiresAt).toISOString()}`)
      if (payload.scope !== scope) throw new SuspensionError('STATE_FOREIGN', '/payload/scope', `the state belongs to scope "${payload.scope}", not "${scope}"`)
      return payload
    },
  })
}

function malformed(pointer: string, expected: string, got: unknown): SuspensionError {
  return new SuspensionError('STATE_MALFORMED', pointer, `expected ${expected}, got ${typeLabel(got)}`)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function parseEnvelope(state: unknown): { kid: string; sig: string; payload: unknown } {
  let value = state
  if (typeof state === 'string') {
    try {
      value = JSON.parse(state)
    } catch (error) {
      throw new SuspensionError('STATE_MALFORMED', '', `the state text is not JSON (${(error as Error).message})`)
    }
  }
  if (!isRecord(value)) throw malformed('', 'a state object', value)
  if (value.format !== STATE_FORMAT) throw malformed('/format', JSON.stringify(STATE_FORMAT), value.format)
  if (value.version !== STATE_VERSION) throw new SuspensionError('STATE_VERSION_UNSUPPORTED', '/version', `this package reads state version ${STATE_VERSION}, got ${typeLabel(value.version)}`)
  if (typeof value.kid !== 'string') throw malformed('/kid', 'a string', value.kid)
  if (typeof value.sig !== 'string' || !/^[A-Za-z0-9_-]+$/.test(value.sig)) throw malformed('/sig', 'a base64url string', value.sig)
  if (!isRecord(value.payload)) throw malformed('/payload', 'an object', value.payload)
  return { kid: value.kid, sig: value.sig, payload: value.payload }
}

/** The payload's fields, checked (a signed state is well-formed unless the signing code is broken or the key leaked; checked anyway). */
function checkPayload(p: unknown): StatePayload {
  const payload = p as Record<string, unknown>
  for (const field of ['suspensionId', 'stateId', 'scope'] as const) if (typeof payload[field] !== 'string') throw malformed(`/payload/${field}`, 'a string', payload[field])
  for (const field of ['createdAt', 'expiresAt'] as const) if (!Number.isSafeInteger(payload[field])) throw malformed(`/payload/${field}`, 'an integer (ms since the epoch)', payload[field])
  if (payload.batchId !== undefined && typeof payload.batchId !== 'string') throw malformed('/payload/batchId', 'a string', payload.batchId)
  if (!Array.isArray(payload.calls)) throw malformed('/payload/calls', 'an array', payload.calls)
  payload.calls.forEach((call: unknown, i: number) => checkCall(call, `/payload/calls/${i}`))
  if (!isRecord(payload.decisions)) throw malformed('/payload/decisions', 'an object', payload.decisions)
  for (const [id, decision] of Object.entries(payload.decisions)) checkDecision(decision, `/payload/decisions/${escapePointer(id)}`)
  return payload as unknown as StatePayload
}

function checkCall(call: unknown, at: string): asserts call is StateCall {
  if (!isRecord(call)) throw malformed(at, 'a call object', call)
  if (typeof call.callId !== 'string' || call.callId === '') throw malformed(`${at}/callId`, 'a non-empty string', call.callId)
  if (typeof call.name !== 'string') throw malformed(`${at}/name`, 'a string', call.name)
  if (call.status === 'completed') {
    const result = call.result
    if (!isRecord(result)) throw malformed(`${at}/result`, 'a result object', result)
    if (typeof result.isError !== 'boolean') throw malformed(`${at}/result/isError`, 'a boolean', result.isError)
    if (!Array.isArray(result.content)) throw malformed(`${at}/result/content`, 'an array of content blocks', result.content)
    if (result.isError && (!isRecord(result.error) || typeof result.error.message !== 'string' || !isRecord(result.error.info))) throw malformed(`${at}/result/error`, '{ message, info }', result.error)
    return
  }
  if (call.status !== 'awaiting-approval' && call.status !== 'blocked') throw malformed(`${at}/status`, '"completed", "awaiting-approval" or "blocked"', call.status)
  if (!isRecord(call.frozenArguments)) throw malformed(`${at}/frozenArguments`, 'an object', call.frozenArguments)
  if (typeof call.parallel !== 'boolean') throw malformed(`${at}/parallel`, 'a boolean', call.parallel)
  if (!isRecord(call.tool) || typeof call.tool.name !== 'string' || typeof call.tool.hash !== 'string') throw malformed(`${at}/tool`, '{ name: string, hash: string }', call.tool)
  if (call.repairs !== undefined && (!Array.isArray(call.repairs) || !call.repairs.every((r) => typeof r === 'string'))) throw malformed(`${at}/repairs`, 'an array of strings', call.repairs)
  if (call.reason !== undefined && typeof call.reason !== 'string') throw malformed(`${at}/reason`, 'a string', call.reason)
  if (call.subCalls === undefined && call.journal === undefined) return
  if (call.journal === undefined) throw malformed(`${at}/journal`, 'the journal of a call whose body suspended', call.journal)
  if (!Array.isArray(call.subCalls) || call.subCalls.length === 0) throw malformed(`${at}/subCalls`, 'a non-empty array of sub-call requests', call.subCalls)
  call.subCalls.forEach((sub: unknown, i: number) => {
    const p = `${at}/subCalls/${i}`
    if (!isRecord(sub)) throw malformed(p, 'a sub-call request object', sub)
    if (typeof sub.callId !== 'string' || sub.callId === '') throw malformed(`${p}/callId`, 'a non-empty string', sub.callId)
    if (typeof sub.toolName !== 'string') throw malformed(`${p}/toolName`, 'a string', sub.toolName)
    if (!isRecord(sub.arguments)) throw malformed(`${p}/arguments`, 'an object', sub.arguments)
    if (sub.reason !== undefined && typeof sub.reason !== 'string') throw malformed(`${p}/reason`, 'a string', sub.reason)
    if (sub.blockedBy !== undefined && typeof sub.blockedBy !== 'string') throw malformed(`${p}/blockedBy`, 'a string', sub.blockedBy)
  })
}

/** Checks one decision; `code` is the error's code (`STATE_MALFORMED` in a state, `DECISION_INVALID` from the caller). */
export function checkDecision(decision: unknown, at: string, code: 'STATE_MALFORMED' | 'DECISION_INVALID' = 'STATE_MALFORMED'): void {
  if (!isRecord(decision)) throw new SuspensionError(code, at, `expected { type: "approve" } or { type: "reject", reason?: string }, got ${typeLabel(decision)}`)
  if (decision.type !== 'approve' && decision.type !== 'reject') throw new SuspensionError(code, `${at}/type`, `expected "approve" or "reject", got ${typeLabel(decision.type)}`)
  if (decision.type === 'reject' && decision.reason !== undefined && typeof decision.reason !== 'string') throw new SuspensionError(code, `${at}/reason`, `expected a string, got ${typeLabel(decision.reason)}`)
}

/** A JSON pointer token (RFC 6901: `~` → `~0`, `/` → `~1`). */
export function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1')
}
