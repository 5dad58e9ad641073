// glibc's functions called straight from JavaScript, loaded once for the whole
// runtime: posix_spawn and its helpers (spawn.ts) and malloc_trim (memory.ts).
// koffi calls them (prebuilt for every architecture we ship, nothing to
// compile). Where koffi or glibc is missing (musl, another system) there is no
// library, and each user falls back on its own way: Node's spawn, no trimming.
import { createRequire } from 'node:module';
import type { LibraryHandle } from 'koffi';

let library: LibraryHandle | null | undefined;

/** glibc through koffi, or null where it cannot be loaded here. */
export function glibc(): LibraryHandle | null {
  if (library === undefined) {
    try {
      const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
      library = process.platform === 'linux' ? koffi.load('libc.so.6') : null;
    } catch {
      library = null;
    }
  }
  return library;
}
