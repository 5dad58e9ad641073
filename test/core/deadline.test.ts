// A request's deadline holds while the garbage collector runs: a receiver on loopback that
// never answers is given up on in time. AbortSignal.timeout() behind AbortSignal.any() was
// collected under the same collections and the request hung (Node issue 57736).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import vm from 'node:vm';
import v8 from 'node:v8';
import { expect } from 'chai';
import { deadline } from '../../runtime/core/deadline.js';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

describe('deadline', () => {
  let server: http.Server;
  let url: string;
  before(async () => {
    server = http.createServer(() => {}); // holds every request, never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  /** How a POST to the silent receiver ended, collecting garbage every 20 ms while it waits (2 s at most). */
  async function post(signal: AbortSignal): Promise<string> {
    const collecting = setInterval(collect, 20);
    try {
      const ended = fetch(url, { method: 'POST', body: '{}', signal }).then(() => 'answered', (err: Error) => err.name);
      return await Promise.race([ended, new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 2000))]);
    } finally {
      clearInterval(collecting);
    }
  }

  it('a request no one answers ends with a TimeoutError once the time is up, garbage collected or not', async () => {
    const due = deadline(new AbortController().signal, 200);
    expect(await post(due.signal)).to.equal('TimeoutError');
    due.clear();
  });

  it('cancelling ends it at once, with the cancel\'s reason', async () => {
    const cancel = new AbortController();
    const due = deadline(cancel.signal, 60_000);
    setTimeout(() => cancel.abort(), 50);
    expect(await post(due.signal)).to.equal('AbortError');
    due.clear();
  });

  it('cleared, the deadline never fires', async () => {
    const due = deadline(new AbortController().signal, 50);
    due.clear();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(due.signal.aborted).to.equal(false);
  });
});
