// Whether a host answers on a TCP port, for the checks that look at the
// gateway's peers before using them (`vigil doctor`: cameras, webhook receivers).
import net from 'node:net';

/** Why a TCP connection to host:port fails (an error code, or no answer in time), or null once it connects; the connection is closed at once. */
export function whyUnreachable(host: string, port: number, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    // a URL's hostname keeps an IPv6 address in brackets; the socket wants it bare
    const socket = net.connect({ host: host.replace(/^\[|\]$/g, ''), port });
    const done = (err: string | null) => {
      socket.destroy();
      resolve(err);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs / 1000} s`));
    socket.once('connect', () => done(null));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}
