// The runtime's version, from the package.json beside dist/ (the source tree or the installed prefix).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export function runtimeVersion(): string {
  try {
    const file = fileURLToPath(new URL('../../../package.json', import.meta.url));
    return String((JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown }).version ?? 'unknown');
  } catch {
    return 'unknown';
  }
}
