// Hospital networks sit behind proxies: HTTP_PROXY is honoured (and NO_PROXY bypasses it).
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runCli, tempDir } from '../helpers/cli.js';
import { json, startFaultServer, type FaultServer } from '../helpers/faultServer.js';

let target: FaultServer;
let proxy: Server;
let proxyUrl: string;
const seenByProxy: string[] = [];
const tmp = tempDir();

beforeAll(async () => {
  target = await startFaultServer(json(200, { status: 'ok' }));
  // A minimal forward proxy for plain http: the request line carries the absolute URL.
  proxy = createServer((req, res) => {
    seenByProxy.push(`${req.method} ${req.url}`);
    const upstream = httpRequest(req.url!, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  // undici's ProxyAgent tunnels with CONNECT, as corporate proxies expect for https.
  proxy.on('connect', (req, client, head) => {
    seenByProxy.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await target.close();
  await new Promise((r) => proxy.close(r));
  tmp.cleanup();
});

describe('proxy from the environment', () => {
  it('sends requests through HTTP_PROXY', async () => {
    const r = await runCli(['health', '-o', 'json', '--base-url', target.url], { env: { ...baseEnv(tmp.dir), HTTP_PROXY: proxyUrl } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ status: 'ok' });
    expect(seenByProxy).toContain(`CONNECT 127.0.0.1:${target.port}`);
  });

  it('bypasses the proxy for hosts in NO_PROXY', async () => {
    const before = seenByProxy.length;
    const r = await runCli(['health', '-o', 'json', '--base-url', target.url], { env: { ...baseEnv(tmp.dir), HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' } });
    expect(r.code).toBe(0);
    expect(seenByProxy.length).toBe(before);
    expect(target.requests.length).toBe(2);
  });
});
