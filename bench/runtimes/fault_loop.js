// node fault_loop.js N — N WebAssembly loads out of bounds, each trapped by
// V8's SIGSEGV handler and caught as a RuntimeError.  Prints the loop's
// nanoseconds and N.
'use strict';
const n = Number(process.argv[2]);
const wasm = require('../../tests/crash/programs/managed/wasm_oob.js');
const t0 = process.hrtime.bigint();
for (let i = 0; i < n; i++) {
  try {
    wasm.load(70000);
  } catch (e) {
    if (!(e instanceof WebAssembly.RuntimeError))
      throw e;
  }
}
console.log(String(process.hrtime.bigint() - t0) + ' ' + n);
