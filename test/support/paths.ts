// Where tests find the project and the shared models and media (read in place, never copied).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/test/support -> project root
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const SHARED = path.resolve(PROJECT_ROOT, '..', 'shared');
export const SHARED_MODELS = path.join(SHARED, 'models');
export const SHARED_MEDIA = path.join(SHARED, 'media');
export const media = (name: string): string => path.join(SHARED_MEDIA, name);
