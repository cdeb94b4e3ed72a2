// ESM: every entry point of every installed package loads with import.
const entries = JSON.parse(process.argv[2]);
for (const entry of entries) {
  const module = await import(entry);
  console.log(`import  ${entry}: ${Object.keys(module).length} exports`);
}
