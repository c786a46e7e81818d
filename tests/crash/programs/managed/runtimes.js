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

const wasm = require('./wasm_oob.js');
let caught = 0;
for (let i = 0; i < 200; i++) {
  try {
    wasm.load(70000 + i);
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
