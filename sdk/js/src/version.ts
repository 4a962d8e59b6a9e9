// The SDK's version, sent as the `agent` header and reported by the loadgen.
// Kept equal to package.json's "version" (a unit test checks).
export const SDK_VERSION = '0.1.0';
export const SDK_NAME = 'jiffy-js';
