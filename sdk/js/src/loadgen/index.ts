// The load generator as a library: the flags, the loop and the report, so
// that drivers for other clients (bench/momento_js_loadgen.mjs, the bare
// grpc-js one) reuse them and print the same JSON.
import { countTcpConnections } from './connections.js';
import { type Driver, loadHistograms, runLoad } from './harness.js';
import { type LoadgenConfig, USAGE, parseLoadgenArgs } from './options.js';
import { buildReport, formatSummary, type LoadgenReport } from './report.js';
import { missingOperations } from './workloads.js';
import { nodeRuntime } from './runtime.js';

export { countTcpConnections, runLoad, parseLoadgenArgs, buildReport, formatSummary, nodeRuntime, USAGE };
export type { Driver, LoadgenConfig, LoadgenReport };
export type { RunResult } from './harness.js';

/**
 * Parses the command line, builds the driver, runs, prints. Exit code 2 on
 * bad flags, 1 when the driver cannot start.
 */
export async function runLoadgenCli(
  argv: readonly string[],
  makeDriver: (config: LoadgenConfig) => Promise<Driver>,
): Promise<LoadgenReport | undefined> {
  let config: LoadgenConfig;
  try {
    config = parseLoadgenArgs(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
    return undefined;
  }
  let driver: Driver;
  try {
    // Before the driver: a missing optional package fails fast, with its install command.
    await loadHistograms();
    driver = await makeDriver(config);
  } catch (err) {
    process.stderr.write(`loadgen: ${(err as Error).message}\n`);
    process.exitCode = 1;
    return undefined;
  }
  if (config.maxConcurrentRequests === 'auto' && driver.effective.maxConcurrentRequests !== 'auto') {
    process.stderr.write(`loadgen: ${driver.sdk} has no adaptive cap (--max-concurrent-requests auto)\n`);
    await driver.close();
    process.exitCode = 2;
    return undefined;
  }
  if (config.delayMs > 0 && driver.faultDelay !== true) {
    process.stderr.write(`loadgen: ${driver.sdk} cannot send delay-ms (--delay-ms)\n`);
    await driver.close();
    process.exitCode = 2;
    return undefined;
  }
  const missing = missingOperations(driver, config.workload);
  if (missing.length > 0) {
    process.stderr.write(`loadgen: ${driver.sdk} has no ${config.workload} workload (its driver lacks ${missing.join(', ')})\n`);
    await driver.close();
    process.exitCode = 2;
    return undefined;
  }
  const progress = config.json ? undefined : (line: string): void => void process.stderr.write(`\r${line}`);
  const result = await runLoad(driver, config, progress);
  if (progress !== undefined) process.stderr.write('\n');
  const port = Number(config.endpoint.split(':').pop());
  const connections = driver.connections?.() ?? countTcpConnections(port);
  const report = buildReport(driver, config, result, connections);
  await driver.close();
  process.stdout.write(config.json ? `${JSON.stringify(report)}\n` : `${formatSummary(report)}\n`);
  return report;
}
