const base = process.memoryUsage().rss;
const mods = process.argv.slice(2);
for (const m of mods) {
  const before = process.memoryUsage().rss;
  await import(m);
  console.log(m.padEnd(32), Math.round((process.memoryUsage().rss - before) / 1048576), 'MB');
}
console.log('total', Math.round((process.memoryUsage().rss - base) / 1048576), 'MB');
