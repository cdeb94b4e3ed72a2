// CommonJS: every entry point of every installed package loads with require() (Node >= 20.19).
const entries = JSON.parse(process.argv[2]);
for (const entry of entries) {
  const module = require(entry);
  console.log(`require ${entry}: ${Object.keys(module).length} exports`);
}
