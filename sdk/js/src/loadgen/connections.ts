// TCP connections this process holds to one server port, the way the 2022
// study counted them with lsof: sockets in /proc/net/tcp{,6} whose remote
// port is the server's and whose inode is one of this process's open fds.
// Works for any client library, so every driver reports it the same way.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

const ESTABLISHED = '01';

function ownSocketInodes(): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // The fd closed while we looked.
    }
  }
  return inodes;
}

/** Established connections from this process to `port`; undefined where /proc is missing. */
export function countTcpConnections(port: number): number | undefined {
  let inodes: Set<string>;
  try {
    inodes = ownSocketInodes();
  } catch {
    return undefined;
  }
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  let count = 0;
  for (const table of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (fields.length < 10) continue;
      if (fields[3] === ESTABLISHED && fields[2]!.endsWith(`:${portHex}`) && inodes.has(fields[9]!)) count += 1;
    }
  }
  return count;
}
