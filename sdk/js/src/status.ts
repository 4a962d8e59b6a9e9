// gRPC status codes (the numbering every gRPC implementation shares), so
// that the client, the errors and the loadgen name codes without importing
// a transport.
export const Status = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

const NAMES: readonly string[] = Object.keys(Status);

/** `14` -> `'UNAVAILABLE'`; unknown numbers read as `'UNKNOWN'`. */
export function statusName(code: number): string {
  return NAMES[code] ?? 'UNKNOWN';
}
