// A protosocket server for tests that answers Authenticate and nothing else:
// every other command waits forever, so deadlines and cancels can be seen,
// or with `failWith` is answered with that CommandError.
// It records what it read, decoded with @bufbuild/protobuf's wire reader
// (not the SDK's codec, which is what is under test).
import * as net from 'node:net';
import { once } from 'node:events';
import { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';
import { FrameDecoder } from '../../src/transport/protosocket-framing.js';

export interface FakeCommand {
  id: number;
  kind: 'auth' | 'get' | 'set' | 'delete' | 'cancel' | 'other';
}

export interface FakeProtosocket {
  endpoint: string;
  commands: FakeCommand[];
  /** Message ids of the cancel frames read. */
  cancels: number[];
  /** Tokens of the Authenticate commands read. */
  tokens: string[];
  close(): void;
}

const KINDS: Record<number, FakeCommand['kind']> = { 1: 'auth', 2: 'get', 3: 'set', 4: 'delete' };

/** A CommandError to answer every Get, Set and Delete with; `reason` is field 3, left out when absent. */
export interface FakeFailure {
  code: number;
  message: string;
  reason?: string;
}

export async function startFakeProtosocket(options: { failWith?: FakeFailure } = {}): Promise<FakeProtosocket> {
  const commands: FakeCommand[] = [];
  const cancels: number[] = [];
  const tokens: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    class Reader extends FrameDecoder {
      protected onFrame(buffer: Buffer, start: number, end: number): void {
        const reader = new BinaryReader(buffer.subarray(start, end));
        let id = 0;
        let control = 0;
        let kind: FakeCommand['kind'] = 'other';
        while (reader.pos < reader.len) {
          const [field, wireType] = reader.tag();
          if (field === 2) id = Number(reader.uint64());
          else if (field === 3) control = reader.uint32();
          else if (field === 10) {
            const unary = new BinaryReader(reader.bytes());
            const [command] = unary.tag();
            kind = KINDS[command] ?? 'other';
            if (kind === 'auth') {
              const auth = new BinaryReader(unary.bytes());
              tokens.push(auth.pos < auth.len ? (auth.tag(), auth.string()) : '');
            }
          } else reader.skip(wireType);
        }
        if (control === 1) {
          cancels.push(id);
          commands.push({ id, kind: 'cancel' });
          return;
        }
        commands.push({ id, kind });
        if (kind === 'auth') {
          const answer = new BinaryWriter().tag(1, 0).uint64(id).tag(10, 2).fork().join().finish();
          socket.write(new BinaryWriter().bytes(answer).finish());
        } else if (options.failWith !== undefined && kind !== 'other') {
          const { code, message, reason } = options.failWith;
          const error = new BinaryWriter().tag(1, 0).int32(code).tag(2, 2).string(message);
          if (reason !== undefined) error.tag(3, 2).string(reason);
          const answer = new BinaryWriter().tag(1, 0).uint64(id).tag(9, 2).bytes(error.finish()).finish();
          socket.write(new BinaryWriter().bytes(answer).finish());
        }
      }
    }
    const frames = new Reader(1 << 20);
    socket.on('data', (chunk: Buffer) => frames.pushChunk(chunk));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    endpoint: `127.0.0.1:${port}`,
    commands,
    cancels,
    tokens,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
