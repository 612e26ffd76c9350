// A stand-in Pico for `tabletop mat flash`'s tests: the real MicroPython 1.27 REPL (the npm
// WebAssembly build) on standard input and output, byte for byte, with flash storage kept across
// resets. Ctrl-D at an empty raw-REPL prompt soft-reboots as a board does ("MPY: soft reboot",
// a fresh interpreter, the same files). `machine.reset()` writes the files to STATE_FILE and
// exits with status 3: the harness (tests/mat/pico_standin.py) drops the USB port as a real
// reset does and boots what was flashed. The build has no hardware, so `machine` here has only
// `reset`, `soft_reset` and `unique_id`.
// Usage: node board.mjs STATE_FILE   (the file may be missing: an empty flash)
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const stateFile = process.argv[2];
if (!stateFile) {
  console.error("usage: node board.mjs STATE_FILE");
  process.exit(2);
}
const RESET_EXIT = 3;
const SYSTEM_DIRS = new Set(["tmp", "home", "dev", "proc"]);

let files = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, "utf8")) : {};
let mp = null;
let muted = false;
let raw = false;
let resetRequested = false;

function write(bytes) {
  if (!muted) process.stdout.write(bytes);
}

// The flash: every file outside the interpreter's own folders, as {path: base64}.
function saveFiles() {
  const saved = {};
  const walk = (dir) => {
    for (const name of mp.FS.readdir(dir)) {
      if (name === "." || name === ".." || (dir === "/" && SYSTEM_DIRS.has(name))) continue;
      const path = (dir === "/" ? "" : dir) + "/" + name;
      if (mp.FS.isDir(mp.FS.stat(path).mode)) {
        saved[path + "/"] = "";
        walk(path);
      } else {
        saved[path] = Buffer.from(mp.FS.readFile(path)).toString("base64");
      }
    }
  };
  walk("/");
  return saved;
}

function restoreFiles() {
  for (const path of Object.keys(files).sort()) {
    if (path.endsWith("/")) mp.FS.mkdir(path.slice(0, -1));
    else mp.FS.writeFile(path, Buffer.from(files[path], "base64"));
  }
}

async function boot() {
  mp = await loadMicroPython({ heapsize: 4 * 1024 * 1024, stdout: write, linebuffer: false });
  restoreFiles();
  mp.registerJsModule("machine", {
    reset: () => {
      resetRequested = true;
    },
    soft_reset: () => {
      resetRequested = true;
    },
    unique_id: () => new Uint8Array([0xe6, 0x61, 0x38, 0x52, 0x83, 0x1c, 0x2a, 0x27]),
  });
  // A board prints its banner only when asked (Enter); keep replInit's quiet.
  muted = true;
  mp.replInit();
  if (raw) await mp.replProcessCharWithAsyncify(0x01);
  muted = false;
}

async function softReboot() {
  files = saveFiles();
  write(Buffer.from("MPY: soft reboot\r\n"));
  await boot();
  if (raw) write(Buffer.from("raw REPL; CTRL-B to exit\r\n>"));
}

function hardReset() {
  writeFileSync(stateFile, JSON.stringify(saveFiles()));
  process.exit(RESET_EXIT);
}

const queue = [];
let busy = false;
async function drain() {
  if (busy) return;
  busy = true;
  while (queue.length) {
    const byte = queue.shift();
    if (byte === 0x01) raw = true;
    if (byte === 0x02) raw = false;
    const result = await mp.replProcessCharWithAsyncify(byte);
    if (resetRequested) hardReset();
    if (result) await softReboot(); // Ctrl-D at an empty prompt
  }
  busy = false;
}

await boot();
process.stdin.on("data", (data) => {
  for (const byte of data) queue.push(byte);
  drain();
});
process.stdin.on("end", () => process.exit(0));
console.error("board ready");
