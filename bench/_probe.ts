import autocannon from 'autocannon';
const [key, ref] = [process.argv[2], process.argv[3]];
const headers = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
const r = await autocannon({ url: 'http://127.0.0.1:8282/api/v1', connections: 5, duration: 2, requests: [{ method: 'GET', headers, setupRequest: (req: any) => ({ ...req, path: `/api/v1/transaction?reference=${ref}` }) }] });
console.log(r.requests.average, r.non2xx, r.errors);
