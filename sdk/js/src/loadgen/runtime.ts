// The runtime a load generator measured: Node's version and the V8 flags it
// ran with. The flags matter as much as the code here: `--max-semi-space-size`
// alone moves p99.9 at low concurrency by an order of magnitude
// (docs/transport.md), so a report must say which it measured.

/** `node 20.20.2`, then any command-line flags and NODE_OPTIONS. */
export function nodeRuntime(): string {
  const parts = [`node ${process.versions.node}`, ...process.execArgv];
  const nodeOptions = process.env.NODE_OPTIONS?.trim();
  if (nodeOptions) parts.push(`NODE_OPTIONS=${nodeOptions}`);
  return parts.join(' ');
}
