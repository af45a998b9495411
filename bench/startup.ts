/**
 * `npm run bench:startup`: how long Kassa takes from `node` to its first answer on /health, run
 * from the compiled build (`node dist/main.js`, what `npm start` runs; `npm run build` first) and
 * from the TypeScript through tsx (`node --import tsx src/main.ts`, what `npm start` ran before),
 * with one and with two HTTP processes, on an existing SQLite database. Medians of the runs.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createTestDatabase } from '../test/support/app.ts';
import { freePort } from '../test/support/process.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const root = path.resolve(import.meta.dirname, '..');
const db = await createTestDatabase('sqlite');

async function startOnce(args: string[], processes: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...db.env, PORT: String(port), HOST: '127.0.0.1', HTTP_PROCESSES: processes, LOG_LEVEL: 'warn', DEMO_MERCHANT: 'false' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return performance.now() - started;
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
try {
  await startOnce(['dist/main.js'], '1'); // migrates the database once
  for (const processes of ['1', '2']) {
    for (const [name, args] of [
      ['compiled (node dist/main.js)', ['dist/main.js']],
      ['tsx (node --import tsx src/main.ts)', ['--import', 'tsx', 'src/main.ts']],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await startOnce([...args], processes));
      console.log(`HTTP_PROCESSES=${processes} ${name}: median ${median(times).toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(', ')})`);
    }
  }
} finally {
  await db.drop();
}
