// The caption font. It comes from the npm package dejavu-fonts-ttf (a
// dependency, so `npm ci` puts it on every install), resolved through Node's
// module resolution; never a system font path that only some machines have.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Absolute path of DejaVuSans.ttf inside node_modules. */
export function captionFont(): string {
  return require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
}
