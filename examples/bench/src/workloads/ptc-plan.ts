/** The PTC workload's plan constants, shared by the runner and the report. */

/**
 * Warm-up rounds (each program once) before the PTC timings of a full run. After `warmUp()`, V8
 * keeps compiling on background threads for the first rounds of the workload (which of its
 * JavaScript optimisation and WebAssembly tier-up was not separated): measured per thread on the
 * 2-core machine, with two executors alternating, V8's helper threads used 53–137 µs of CPU per
 * sequential sub-call during the first 15 rounds after 3 warm-up rounds, competing with the main
 * thread and the engine worker, and 0–34 µs in the rounds after, in a fresh process as much as
 * after the batch workloads (optimisations.md, Round 5 (PTC)).
 */
export const PTC_WARMUP_ROUNDS = 20
