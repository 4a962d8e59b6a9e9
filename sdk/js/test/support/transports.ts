// The transports every integration suite runs against.
import type { TransportName } from '../../src/config.js';

export const TRANSPORTS: readonly TransportName[] = ['grpc-js', 'http2'];
