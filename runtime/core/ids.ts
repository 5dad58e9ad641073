// The ids and names the gateway accepts, written once. A name (a tenant, a
// flow, a camera, a zone) is also a segment of MQTT topics and of paths, so it
// keeps to a safe alphabet; a classification id is the lowercase UUID the
// gateway gives each accepted clip (crypto.randomUUID()).

const NAME_CHARS = '[A-Za-z0-9._-]{1,64}';

/** 1 to 64 letters, digits, ".", "_" or "-": tenant ids, flows, zone names. */
export const NAME = new RegExp(`^${NAME_CHARS}$`);

/** A NAME that is not only dots, which a topic or a path would read as "this" or "the parent": camera ids. */
export const CAMERA_ID = new RegExp(`^(?!\\.+$)${NAME_CHARS}$`);

/** A classification id: a lowercase UUID. */
export const CLASSIFICATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A name as Home Assistant's object and node ids allow it: other characters become "_". */
export function haId(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}
