/**
 * `pnpm conformance`: registers every real MCP tool and BFCL function, projects them, generates
 * the PTC SDK, validates the recorded and ground-truth calls, and prints the report.
 * Exits 1 when a registration failed or a documented dataset error was not rejected as expected.
 */
import { runConformance } from './conformance'
import { formatReport } from './report'

const report = await runConformance()
console.log(formatReport(report))
const broken = report.mcp.failures.length + report.bfcl.failures.length + report.mismatches.problems.length
if (broken > 0) process.exitCode = 1
