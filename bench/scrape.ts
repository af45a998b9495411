/**
 * `npm run bench:scrape`: what a Prometheus scrape costs the request path. Kassa runs as in
 * production (two HTTP processes and a primary, SQLite); autocannon creates card payments, in
 * rounds alternating between no scraper and a scraper asking `/metrics` every second, so that
 * the machine's drift falls on both alike. Prints each round and the medians (docs/operations.md
 * "Metrics" has the figures).
 */
import autocannon from 'autocannon';
import { createTestDatabase } from '../test/support/app.ts';
import { kassaCli, startKassaProcess } from '../test/support/process.ts';
import { cardPayment } from '../test/support/app.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 20;
const TOKEN = 'bench-metrics-token';

const db = await createTestDatabase('sqlite');
const { testApiKey } = JSON.parse(kassaCli(db.env, 'merchant', 'create', '--name', 'Bench Shop', '--json'));
const kassa = await startKassaProcess({ ...db.env, HTTP_PROCESSES: '2', RATE_LIMIT_PER_SECOND: '0', LOG_REQUESTS: 'false', METRICS_TOKEN: TOKEN });
const authorization = `Basic ${Buffer.from(`${testApiKey}:`).toString('base64')}`;

async function round(scraping: boolean) {
  let scrapes = 0;
  let scrapeMs = 0;
  const scrape = async () => {
    const started = performance.now();
    const res = await fetch(`${kassa.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await res.text();
    scrapeMs += performance.now() - started;
    scrapes++;
  };
  const scraper = scraping ? setInterval(() => void scrape(), 1000) : undefined;
  const result = await autocannon({
    url: `${kassa.baseUrl}/api/v1/payment`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(cardPayment()),
  });
  clearInterval(scraper);
  return {
    scraping,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    scrapes,
    scrapeMs: scrapes ? scrapeMs / scrapes : 0,
  };
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
try {
  await round(false); // warm-up
  const results = [];
  for (let i = 0; i < ROUNDS; i++) for (const scraping of [false, true]) results.push(await round(scraping));
  for (const r of results) console.log(JSON.stringify(r));
  for (const scraping of [false, true]) {
    const mine = results.filter((r) => r.scraping === scraping);
    console.log(
      `${scraping ? 'scraping every 1 s' : 'no scraper        '}: ${median(mine.map((r) => r.rps)).toFixed(0)} creates/s, p50 ${median(mine.map((r) => r.p50))} ms, p99 ${median(mine.map((r) => r.p99))} ms` +
        (scraping ? `, a scrape takes ${median(mine.map((r) => r.scrapeMs)).toFixed(1)} ms` : ''),
    );
  }
} finally {
  kassa.child.kill('SIGTERM');
  await db.drop();
}
