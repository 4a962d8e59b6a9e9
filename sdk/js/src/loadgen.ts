#!/usr/bin/env node
// Entry point of the load generator (LOADGEN.md); the package bin.
console.error('loadgen: not built yet');
process.exitCode = 2;
