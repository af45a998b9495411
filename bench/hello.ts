/** The yardstick: a Fastify hello-world server, measured in the same run as Kassa. */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`ready ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
