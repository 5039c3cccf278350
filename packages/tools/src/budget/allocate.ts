/**
 * The per-batch allocation rule (pure): how a batch's character budget is shared among its
 * results.
 */

/**
 * Max-min fair shares of `budget` characters among results of `sizes` characters (call order):
 * results are visited from the smallest (ties: call order); each gets its size or an equal share
 * of what is left (`floor(left / results not yet visited)`), whichever is smaller. So results that
 * fit their share are never cut, one huge result cannot starve the others, and the largest ones
 * split the rest evenly (the last visited gets the rounding remainder). Depends only on the sizes
 * in call order, never on completion order. Every share is at most its size; their sum is at most
 * `budget`, and equals `min(budget, sum of sizes)`.
 */
export function allocateBudget(sizes: readonly number[], budget: number): readonly number[] {
  const order = sizes.map((_, i) => i).sort((a, b) => sizes[a]! - sizes[b]! || a - b)
  const shares = new Array<number>(sizes.length)
  let left = budget
  let remaining = sizes.length
  for (const index of order) {
    const share = Math.min(sizes[index]!, Math.floor(left / remaining))
    shares[index] = remaining === 1 ? Math.min(sizes[index]!, left) : share
    left -= shares[index]!
    remaining--
  }
  return shares
}
