/**
 * A stage cursor of the batch runner (internal): the one place the runner's "advance while the
 * stage finishes synchronously, park on what it waits for" pattern is written.
 *
 * Each of the runner's ordered stages — policy, start (pool admission and dispatch) and
 * completion (post-execute → finalize → observe) — keeps submission order with one cursor: the
 * calls before {@link StageCursor.at} are past the stage. A step runs the stage for the call at
 * the cursor and says what happened: it finished ({@link NEXT}: the cursor moves on, in the same
 * pass, without a promise), the call is not ready for the stage yet ({@link HOLD}: the cursor
 * stays and the pass goes on to the other stages), or it waits ({@link PARK}: the cursor stays
 * on the call until {@link StageCursor.unpark}, which the promise's settlement or the pool's
 * admission calls).
 */

/** The call's stage finished synchronously: the cursor moves on. */
export const NEXT = 0
/** The call is not ready for the stage (e.g. its dispatch has not ended): the cursor stays, not parked. */
export const HOLD = 1
/** The call's stage waits (a promise, the pool): the cursor stays on it until {@link StageCursor.unpark}. */
export const PARK = 2
/** What a step did: {@link NEXT}, {@link HOLD} or {@link PARK}. */
export type StepOutcome = typeof NEXT | typeof HOLD | typeof PARK

/** How a parked step's promise settled: `failed` tells whether it rejected, with `error`. */
export type Settle = (failed: boolean, error: unknown) => void

/** One ordered stage's position over the runner's calls (see the module comment). */
export class StageCursor {
  /** The index of the first call not past the stage. */
  at = 0
  /** Whether the step of the call at {@link at} waits. */
  parked = false

  /** `step(index)` runs the stage for the call at `index`, once per call unless it returned {@link HOLD}. */
  constructor(private readonly step: (index: number) => StepOutcome) {}

  /**
   * Runs the stage for the calls before `upTo`, from the cursor on, while each finishes
   * synchronously, for at most `limit` calls. Returns whether the cursor moved.
   */
  advance(upTo: number, limit: number): boolean {
    let moved = 0
    while (!this.parked && this.at < upTo && moved < limit) {
      const outcome = this.step(this.at)
      if (outcome === HOLD) break
      if (outcome === PARK) {
        this.parked = true
        break
      }
      this.at++
      moved++
    }
    return moved > 0
  }

  /** The parked call's stage ended: the cursor moves past it. */
  unpark(): void {
    this.parked = false
    this.at++
  }

  /**
   * Parks the cursor on `pending` without finishing the call's stage: once it settles, the
   * cursor is free again and `resume` goes on with the pass, which runs the same call's step
   * again (a step that waited for something before the stage itself, e.g. a ledger claim).
   */
  waitOn(pending: Promise<void>, resume: () => void): typeof PARK {
    const go = (): void => {
      this.parked = false
      resume()
    }
    pending.then(go, go)
    return PARK
  }

  /**
   * Parks the cursor on `pending` (returns {@link PARK} for the step to return): once it
   * settles, `settle` finishes the call's stage, the cursor moves past the call and `resume`
   * goes on with the runner's pass.
   */
  parkOn(pending: Promise<void>, settle: Settle | undefined, resume: () => void): typeof PARK {
    pending.then(
      () => {
        settle?.(false, undefined)
        this.unpark()
        resume()
      },
      (error: unknown) => {
        settle?.(true, error)
        this.unpark()
        resume()
      },
    )
    return PARK
  }
}
