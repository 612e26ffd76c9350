// Runs the firmware's test_fw_* modules under MicroPython 1.27 (WebAssembly build) and prints
// one JSON line per test: {"module": ..., "test": ..., "ok": true|false, "error": ...}.
// Usage: node run.mjs REPO_ROOT
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const root = process.argv[2];
if (!root) {
  console.error("usage: node run.mjs REPO_ROOT");
  process.exit(2);
}

const mp = await loadMicroPython({
  heapsize: 16 * 1024 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

// Copy the firmware package and the firmware tests into MicroPython's in-memory file system.
function copyTree(from, to, keep) {
  mp.FS.mkdir(to);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "__pycache__") copyTree(source, to + "/" + entry.name, keep);
    } else if (keep(entry.name)) {
      mp.FS.writeFile(to + "/" + entry.name, readFileSync(source));
    }
  }
}
// The firmware is the package `tabletop.firmware` here, as in CPython (on the board it is
// `firmware`: its modules import one another relatively, so either name works).
mp.FS.mkdir("/t");
mp.FS.mkdir("/t/tabletop");
mp.FS.writeFile("/t/tabletop/__init__.py", "");
copyTree(join(root, "src", "tabletop", "firmware"), "/t/tabletop/firmware", (n) => n.endsWith(".py") || n.endsWith(".json"));
copyTree(join(root, "tests", "mat", "fw"), "/t/fw", (n) => n.endsWith(".py"));

mp.runPython(`
import sys, json, os
sys.path.insert(0, "/t/fw")
sys.path.insert(0, "/t")
for name in sorted(os.listdir("/t/fw")):
    if not (name.startswith("test_") and name.endswith(".py")):
        continue
    module_name = name[:-3]
    try:
        module = __import__(module_name)
    except Exception as error:
        print(json.dumps({"module": module_name, "test": "<import>", "ok": False,
                          "error": "%s: %s" % (type(error).__name__, error)}))
        continue
    for test in sorted(n for n in dir(module) if n.startswith("test_")):
        try:
            getattr(module, test)()
            print(json.dumps({"module": module_name, "test": test, "ok": True}))
        except Exception as error:
            print(json.dumps({"module": module_name, "test": test, "ok": False,
                              "error": "%s: %s" % (type(error).__name__, error)}))
print(json.dumps({"done": True, "implementation": sys.implementation.name,
                  "version": list(sys.implementation.version[:3])}))
`);
