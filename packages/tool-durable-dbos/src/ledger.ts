/**
 * A resume ledger on PostgreSQL, for suspended batches resumed in several processes (the
 * suspension API's `ResumeLedger` of `@deepseek-ai/dsh-tools`: `consumeState` and `claimCall`,
 * each an "insert if absent" answering whether the entry is new). One table; an expired entry is
 * taken over as new.
 */
import pg from 'pg'

/** Options of {@link PostgresResumeLedger}. */
export interface PostgresLedgerOptions {
  /** The table (default `dsh_resume_ledger`, created on first use); a plain SQL identifier. */
  readonly table?: string
}

/**
 * Records consumed suspension states and claimed calls in PostgreSQL (`INSERT … ON CONFLICT`),
 * so a state is resumed and a call runs at most once across every process that shares the
 * database. Give it a `pg.Pool` (the caller owns and ends it).
 *
 * @throws TypeError when `table` is not a plain identifier (`[a-z_][a-z0-9_]*`, at most 63 characters).
 */
export class PostgresResumeLedger {
  readonly #pool: pg.Pool
  readonly #table: string
  #ready: Promise<unknown> | undefined

  constructor(pool: pg.Pool, options: PostgresLedgerOptions = {}) {
    const table = options.table ?? 'dsh_resume_ledger'
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(table)) throw new TypeError(`PostgresResumeLedger: table must match [a-z_][a-z0-9_]* (at most 63 characters), got ${JSON.stringify(table)}`)
    this.#pool = pool
    this.#table = table
  }

  /** Marks state `stateId` consumed: `true` the first time (or once its earlier entry expired), `false` after. */
  consumeState(stateId: string, expiresAt: number): Promise<boolean> {
    return this.#insert('state', stateId, expiresAt)
  }

  /** Claims call `callId` of suspension `suspensionId`: `true` the first time, `false` after. */
  claimCall(suspensionId: string, callId: string, expiresAt: number): Promise<boolean> {
    // PostgreSQL text cannot hold NUL: the pair is kept as its JSON array text.
    return this.#insert('call', JSON.stringify([suspensionId, callId]), expiresAt)
  }

  async #insert(kind: 'state' | 'call', key: string, expiresAt: number): Promise<boolean> {
    this.#ready ??= this.#pool.query(`CREATE TABLE IF NOT EXISTS ${this.#table} (kind text NOT NULL, key text NOT NULL, expires_at bigint NOT NULL, PRIMARY KEY (kind, key))`).catch((error: unknown) => {
      // Two processes creating the table at once: PostgreSQL reports the loser's duplicate; the table exists.
      const code = (error as { code?: unknown }).code
      if (code === '23505' || code === '42P07') return
      this.#ready = undefined
      throw error
    })
    await this.#ready
    const result = await this.#pool.query(
      `INSERT INTO ${this.#table} AS l (kind, key, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (kind, key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE l.expires_at < $4
       RETURNING 1`,
      [kind, key, expiresAt, Date.now()],
    )
    return result.rowCount === 1
  }
}
