/*
 * V8 takes SIGSEGV on purpose: a WebAssembly load out of its memory's
 * bounds faults on a guard region, and V8's trap handler turns the fault
 * into a RuntimeError.
 *
 *   node runtimes.js MODE [ADDON]
 *
 * wasm   200 out-of-bounds loads caught (exit 0: postmortem writes nothing)
 * abort  process.abort() after them (a crash: one report)
 * crash  ADDON's crash(): a write at address 16 in native code (a crash)
 * ADDON, when given, is loaded first; if it has install() (pm_addon_linked,
 * which links libpostmortem), that is called: an app that embeds
 * postmortem, after node's own handlers.
 */
'use strict';
const [mode, addonPath] = process.argv.slice(2);
const addon = addonPath ? require(addonPath) : null;
if (addon && addon.install)
  addon.install();

// (module (memory 1) (func (export "load") (param i32) (result i32) local.get 0 i32.load))
const bytes = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f,
  0x03, 0x02, 0x01, 0x00,
  0x05, 0x03, 0x01, 0x00, 0x01,
  0x07, 0x08, 0x01, 0x04, 0x6c, 0x6f, 0x61, 0x64, 0x00, 0x00,
  0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x28, 0x02, 0x00, 0x0b,
]);
const wasm = new WebAssembly.Instance(new WebAssembly.Module(bytes));
let caught = 0;
for (let i = 0; i < 200; i++) {
  try {
    wasm.exports.load(70000 + i);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError)
      caught++;
  }
}
console.log('caught ' + caught);
if (mode === 'abort')
  process.abort();
if (mode === 'crash')
  addon.crash();
